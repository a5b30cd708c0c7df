/* compare.h - two configurations of a graph side by side.
 *
 * One comparison, shared by every front end: `hloscope compare`, the REPL's
 * `compare A B`, the explorer's split view and `hloscope dot --compare`.
 *
 * Selectors name a config: an index ("17"), "best" / "worst" (smallest /
 * largest measured runtime: labeled files only) or "default" (the layout
 * config whose values are all -1, i.e. the compiler's own choice, where the
 * file has one).
 *
 * Layout: one row per configurable node where A and B differ (every
 * configurable node with `all`), holding the 18 node_config_feat values of
 * A and of B.  The dataset README documents them as three minor-to-major
 * layouts of six entries, -1 padding past the tensor's rank:
 *     0..5 output layout, 6..11 input layout, 12..17 kernel layout
 *     (convolutions only).
 * A config whose values are all -1 leaves every choice to the compiler.
 *
 * Neighbours: configurable nodes are rarely adjacent (real graphs put
 * converts, adds and maxima between the convolutions), so the neighbours of
 * a row are the nearest configurable nodes found by walking operands (or
 * users) through non-configurable nodes, at most COMPARE_MAX_HOPS steps
 * away.  A neighbour is "comparable" when its layout passes unchanged in
 * numbering through every node on the way: each has the producer's rank and
 * is not an op that renumbers dimensions (reshape, transpose, broadcast,
 * bitcast, reduce, dot, convolution, gather, scatter, tuples, calls, ...),
 * so elementwise ops, converts, concatenates, slices and pads pass.  Then a
 * producer's output layout that disagrees with the consumer's input layout
 * (its kernel layout when the consumer is a convolution or a dot reached
 * through operand 1: the README documents kernel layouts for convolutions,
 * and the real files set them for dots too) needs a copy or a transpose
 * somewhere on the way: a mismatch.
 * Only entries set in both (not -1) are compared; a layout left to the
 * compiler (all -1), an undocumented operand slot or a non-comparable path
 * give "unknown".
 *
 * Tile: the 24 config_feat values of A and B and the kernel's nodes.
 *
 * Rows name their node (its instruction name, derived on a bare .npz:
 * "convolution.603"), its opcode as written, its HLO computation and, from
 * an HLO module, its op_name metadata.
 *
 * Two files: with `gb` set, A is a config of `ga` and B one of `gb`.  The
 * graphs must be equal: same kind, node count, opcodes, edges (as a set)
 * and, for layout, the same configurable nodes; otherwise HS_EUSAGE with a
 * message saying what differs.
 *
 * Unlabeled files (every runtime 0): runtimes and ranks are hidden
 * (runtime_a/b are NaN and `labeled_*` is 0), values still compare; "best"
 * and "worst" fail with a message saying why.
 *
 * Errors: HS_EUSAGE for a bad selector, an index out of range, best/worst
 * on an unlabeled file, no default config, unequal graphs; HS_EDATA when
 * node configs fail to load; HS_ENOMEM when memory runs out (predicting
 * too).  Predictions the model cannot make are not an error: the result
 * holds pred_error instead.
 *
 * Ownership: compare_run() returns a result freed by compare_free().  The
 * result borrows the graphs and the model, which must outlive it; all rows
 * and strings in it belong to the result.
 */
#ifndef HS_COMPARE_H
#define HS_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "loader/graph.h"
#include "model/model.h"
#include "model/predictor.h"

#define COMPARE_MAX_HOPS 4      /* neighbour walk depth */
#define COMPARE_MAX_NEIGHBORS 8 /* per side and row; more are counted */

/* Resolves a selector to a config index of g; -1 with err set. `what`
 * names the side in messages ("A", "B"; may be NULL). */
int64_t compare_resolve(hs_graph *g, const char *sel, const char *what,
			hs_error *err);

typedef enum compare_sort {
	COMPARE_SORT_ID,           /* node id ascending */
	COMPARE_SORT_CONTRIBUTION, /* |contribution| descending, absent last, then id */
} compare_sort;

/* "id" / "contribution" -> sort, or -1. */
int compare_sort_parse(const char *s);

typedef struct compare_opts {
	int all;              /* every configurable node, not only differing ones */
	compare_sort sort;
	const hs_model *model;/* borrowed; NULL = the analytic estimate */
	int predict;          /* compute predicted runtimes and ranks (default 1) */
	/* The predictors the caller has already (the explorer's and the query
	 * language's active one, a fit included), of A's graph and of B's
	 * (the same when one graph holds both): their scores, label and unit
	 * are used instead of the model's when both are given and have one
	 * label.  A fit gives no per-node contributions.  NULL: the model's. */
	const predictor *pred_a, *pred_b;
} compare_opts;

void compare_opts_init(compare_opts *o);

enum compare_side { COMPARE_OPERAND = 0, COMPARE_USER = 1 };

typedef struct compare_neighbor {
	int64_t node;       /* a configurable node */
	int side;           /* enum compare_side: it feeds the row's node, or uses it */
	int hops;           /* 1 = adjacent */
	int slot;           /* operand position on the consumer's end */
	int comparable;     /* the layout passes every node on the way */
	int mismatch_a;     /* 1 mismatch, 0 agree, -1 unknown (not comparable, default or unset) */
	int mismatch_b;
} compare_neighbor;

typedef struct compare_row {
	int64_t node;
	int64_t k_a, k_b;   /* index into each graph's node_config_ids */
	int opcode;
	int32_t comp;       /* its node_splits segment (a "split") */
	int64_t hcomp;      /* its HLO computation (index into ga->hcomps) */
	int differs;
	const float *a, *b; /* [width] values of A and B (owned by the result) */
	unsigned char *changed; /* [width] 1 where a != b */
	double contribution;/* the model's share of the predicted difference; NaN = absent */
	compare_neighbor *nb;   /* operands first, then users */
	int n_nb;
	int more_operands, more_users; /* neighbours past COMPARE_MAX_NEIGHBORS */
} compare_row;

typedef struct compare_count {
	int64_t key;        /* opcode id, split or HLO computation index */
	int64_t count;
} compare_count;

typedef struct compare_side_info {
	int64_t config;
	char selector[24];  /* as given: "best", "default", "12" */
	int labeled;
	double runtime;     /* tile: normalized; layout: ns; NaN when unlabeled */
	int64_t runtime_raw;/* ns as stored */
	int64_t rank;       /* 1 = fastest of its file (ties share); 0 when unlabeled */
	double predicted;   /* NaN when absent */
	int64_t pred_rank;  /* 0 when absent; competition rank (ties share it) */
	int pred_tied;      /* another config has the same prediction */
	int64_t n_configs;
	int mismatches;     /* layout: operand-side neighbour mismatches over all configurable nodes */
} compare_side_info;

typedef struct compare_result {
	hs_graph *ga, *gb;  /* borrowed; gb == ga for one file */
	hs_kind kind;
	int width;          /* values per row (layout) or per config (tile) */
	compare_side_info A, B;
	double runtime_ratio;   /* B / A measured; NaN when either is unlabeled */
	double predicted_ratio; /* B / A predicted; NaN when absent or when the
	                         * scores are not positive (learned heads give
	                         * unitless scores: use predicted_diff) */
	double predicted_diff;  /* B - A predicted; NaN when absent */
	char pred_label[96];    /* model_describe(): "analytic estimate", ... */
	int pred_ns;            /* predictions are times in ns (else normalized
				 * tile times, or scores when time_kind is NULL) */
	const char *time_kind;  /* predictor_time_kind(): "estimate", "calibrated",
				 * "learned"; NULL: unitless scores */
	double contrib_scale;   /* contributions are ns of the predicted times
				 * (the estimate's times this factor); NaN: scores */
	char pred_error[256];   /* why predictions are absent, or "" */
	char contrib_note[160]; /* why contributions are absent, or "" */
	int has_contribution;
	double contrib_total;   /* sum over every configurable node (= predicted B - A) */
	double contrib_differ;  /* sum over the differing nodes */

	/* Layout. */
	int64_t n_cfg;          /* configurable nodes */
	int64_t n_differ;       /* rows that differ */
	int64_t n_rows;         /* rows kept (differing, or all) */
	compare_row *rows;
	compare_count *opcodes; /* differing nodes per opcode, count descending */
	int n_opcodes;
	compare_count *comps;   /* differing nodes per split (node_splits segment), count descending */
	int n_comps;
	compare_count *hcomps;  /* differing nodes per HLO computation, count descending */
	int n_hcomps;
	int sort;               /* compare_sort applied */
	int all;                /* rows hold every configurable node */

	/* Tile. */
	const float *tile_a, *tile_b; /* [width] */
	unsigned char *tile_changed;  /* [width] */
	int tile_n_differ;

	void *priv;             /* internal storage */
} compare_result;

/* Compares config `sel_a` of ga with `sel_b` of gb (gb NULL: of ga). */
compare_result *compare_run(hs_graph *ga, hs_graph *gb, const char *sel_a,
			    const char *sel_b, const compare_opts *o,
			    hs_error *err);
void compare_free(compare_result *r);

/* Re-sorts the rows. */
void compare_sort_rows(compare_result *r, compare_sort s);

/* 0 when ga and gb are the same program (see above); else -1 with a message
 * that says what differs (HS_EUSAGE). */
int compare_graphs_equal(const hs_graph *ga, const hs_graph *gb, hs_error *err);

/* The node ids whose values differ (layout: differing rows; tile: every
 * node of the kernel when any value differs), ascending, into a malloc'd
 * array (*ids, freed by the caller; NULL when none).  Returns the count, or
 * -1 when out of memory.  For dot_opts.highlight. */
int64_t compare_changed_nodes(const compare_result *r, int64_t **ids);

/* The highlight set of `hloscope dot --compare A B` (and the explorer):
 * compare_changed_nodes() of configs sel_a and sel_b of g, appended to
 * *ids (malloc'd or NULL; reallocated here, *n updated; the caller frees
 * it).  No predictions are made.  0, or -1 with err set (HS_EUSAGE for a
 * bad selector). */
int compare_highlight(hs_graph *g, const char *sel_a, const char *sel_b,
		      int64_t **ids, size_t *n, hs_error *err);

/* A drawing of the comparison (`hloscope dot --compare`, the explorer's
 * export): per node of ga, the values that changed, one line per layout
 * group that differs ("output {1,0,2} → {0,1,2}", A then B), NULL for
 * unchanged nodes and for tile files (their config is the graph's, see the
 * legend).  Returns [ga->n_nodes] malloc'd strings, freed by
 * compare_notes_free(r's node count); NULL when out of memory.  For
 * dot_opts.notes. */
char **compare_node_notes(const compare_result *r);
void compare_notes_free(char **notes, int64_t n);
/* The legend of such a drawing, lines separated by '\n': what the blue
 * border means, which configs A and B are, how many nodes differ (tile:
 * which values) and how to read the notes.  Like snprintf.  For
 * dot_opts.highlight_legend. */
int compare_legend_text(const compare_result *r, char *buf, size_t cap);

/* Layout value groups: "output", "input", "kernel" for group 0..2. */
const char *compare_group_name(int group);
/* Layout text of entries [j0, j0 + 6) of v: "{4,0}" (the entries up to the
 * last one set in v or in `other` (may be NULL), -1 written as "-"), "-"
 * when every entry of v is -1 (left to the compiler); when `changed` is
 * given, entries that differ get a '*' after them ("-*" for an unset group
 * that differs).  Like snprintf. */
int compare_layout_text(const float *v, const float *other,
			const unsigned char *changed, int j0, char *buf,
			size_t cap);

/* The printers every front end uses, so that `hloscope compare` and the
 * REPL's `compare` print the same thing.  Text: a header (files, configs,
 * measured and predicted runtime, ratio, ranks), a summary line, then the
 * rows; JSON: one document (keys in compare_json.c's header comment).  Return
 * 0, or -1 with err set when writing fails. */
enum compare_format { COMPARE_TEXT, COMPARE_JSON };
int compare_print(FILE *out, const compare_result *r, int format, hs_error *err);

/* The one-line summary ("46 of 56 configurable nodes differ; opcodes:
 * convolution 43, reshape 3; computations: computation.61 (40), entry (6)",
 * the HLO computations by name), like snprintf. */
int compare_summary(const compare_result *r, char *buf, size_t cap);

/* compare_run + compare_print + compare_free, for the REPL. */
int compare_write(FILE *out, hs_graph *ga, hs_graph *gb, const char *sel_a,
		  const char *sel_b, const compare_opts *o, int format,
		  hs_error *err);

#endif
