/* dot.h - a region as a Graphviz graph; export to DOT, SVG, PNG.
 *
 * Graphviz (cgraph + gvc) is linked, never run as a process.  The graph
 * follows XLA's graph dumper: rankdir=TB, edges from operand to user (data
 * flows down), nodes labelled "id: opcode" over the HLO shape text (with
 * real HLO names, "name" over "id: opcode" over the shape) and filled by
 * opcode category (render/palette.h), one cluster per real HLO computation
 * when the graph has more than one (labelled with its name and role),
 * placeholders dashed ("12 more users", "1,478 more operands"), collapsed
 * computations (region.h) one double-bordered box labelled with their name,
 * role and node count.  Edges get heavier
 * with the bytes of the tensor they carry.  The region's focus nodes are
 * drawn bold with a thick red border, the highlight set with a thick blue
 * one, configurable nodes of layout graphs with a double border and "[cfg]".
 * Heat mode fills nodes from any per-node number on a white-yellow-red ramp
 * (log scale when the values span more than two decades) and adds a legend.
 *
 * Edges are HLO operands (region.h); where the user has several operands an
 * edge's head label gives the operand index ("0,1" for a repeated one), as
 * XLA's dumper does.  Call edges (a callee's root or box to its caller) are
 * dotted and gray.
 *
 * Regions of more than DOT_BIG_REGION nodes, or of more layout work than
 * DOT_BIG_WORK (region_work: long edges), get Graphviz's mclimit=0.3 and
 * nslimit=0.5, bounding its crossing minimisation and network simplex
 * (minutes become seconds, at some cost in crossings).
 *
 * Output is deterministic: the same region and options give the same bytes.
 *
 * Ownership: dot_build() returns a graph the caller closes with agclose().
 * Options only borrow their arrays.  The Graphviz context is shared and
 * lives until dot_shutdown().
 */
#ifndef HS_DOT_H
#define HS_DOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <graphviz/cgraph.h>

#include "base/error.h"
#include "loader/hlo.h"
#include "render/region.h"

/* Graphviz's context, declared here so that this header does not pull in
 * gvc.h (whose types.h defines names such as `box` that clash with curses). */
typedef struct GVC_s GVC_t;

#define DOT_BIG_REGION 500
#define DOT_BIG_WORK 5000  /* region_work.total past which the same limits apply */

typedef struct dot_opts {
	const double *heat;      /* [g->n_nodes] or NULL; NaN = no value */
	const char *heat_name;   /* legend title, e.g. "cost (s)" */
	int heat_log;            /* -1 auto (default), 0 linear, 1 log */
	const int64_t *highlight;/* node ids to highlight, or NULL */
	size_t n_highlight;
	const char *const *notes;/* [g->n_nodes] or NULL: more label text per
	                          * node ('\n' between lines; NULL: none) */
	const char *highlight_legend; /* NULL, or lines ('\n' between them)
	                          * explaining the highlight: a legend box with
	                          * the highlight's border beside them */
	int clusters;            /* -1 auto (default: when > 1 computation) */
	int terminal;            /* geometry for the terminal drawing: boxes sized
	                          * in character cells (LAYOUT_CELL_W/H points),
	                          * empty labels, no legend; see layout.h */
	const uint8_t *heat_sum; /* [g->n_nodes] or NULL: the nodes whose heat a
	                          * group box sums (NULL: all of them) */
} dot_opts;

void dot_opts_init(dot_opts *o);

/* Builds the cgraph graph of a region (named after the graph file). */
Agraph_t *dot_build(const region *r, const dot_opts *o, hs_error *err);

/* Output format for a file name: "dot", "svg" or "png" from its extension
 * (.dot/.gv, .svg, .png), or NULL. */
const char *dot_format_for_path(const char *path);
/* 1 when `fmt` is one we write ("dot", "svg", "png"). */
int dot_format_known(const char *fmt);

/* How a PNG was made to fit (dot_fit_layout).  PNG sides stay within
 * DOT_PNG_MAX_PX pixels at DOT_PNG_DPI: a drawing over the limit, or a
 * strip (one side over DOT_STRIP_PX and DOT_STRIP_RATIO times the other),
 * is laid out again left to right with compact nodes (a wide fan-out turns
 * into a column), kept when it needs less zoom (at equal zoom: when less
 * elongated); what is still over the limit is zoomed out.  SVG and DOT are
 * never changed: they keep the full size. */
#define DOT_PNG_MAX_PX 16000
#define DOT_PNG_DPI 96.0
#define DOT_STRIP_PX 4000
#define DOT_STRIP_RATIO 4.0
/* A top-to-bottom layout that took longer than this is not laid out again
 * left to right (that would double the time): it is zoomed out instead. */
#define DOT_FIT_RELAYOUT_SECONDS 2.0
typedef struct dot_fit {
	int tried;          /* 1 when the top-to-bottom layout did not fit */
	int slow;           /* 1 when left to right was not tried: the layout
	                     * took over DOT_FIT_RELAYOUT_SECONDS */
	double seconds;     /* the top-to-bottom layout's time */
	int full_w, full_h; /* px of the top-to-bottom layout */
	int left_right;     /* 1: drawn left to right instead */
	double scale;       /* zoom applied, 1 = full size */
	int w, h;           /* px written */
} dot_fit;

/* Lays g out for PNG as described above (sets the graph's "viewport" when
 * zooming; dot_fit_done() clears it after rendering); fills *fit (may be
 * NULL).  -1 when Graphviz's layout fails. */
int dot_fit_layout(GVC_t *gvc, Agraph_t *g, dot_fit *fit);
void dot_fit_done(Agraph_t *g);
/* What was done, for the user ("PATH: drawn left to right, 2387 x 2221 px:
 * top to bottom it is 12808 x 809 px, a strip (an .svg keeps it top to
 * bottom)"; no "PATH: " when path is NULL); "" and 0 when the PNG is the
 * plain top-to-bottom drawing.  Like snprintf. */
int dot_fit_text(const dot_fit *f, const char *path, char *buf, size_t cap);

/* Writes `g` to `path` in `fmt` through base/afile.h (a temporary file in
 * the same folder and a rename; a file that cannot be written or a place
 * afile refuses is HS_EDATA, an unknown format HS_EUSAGE): "dot" is
 * agwrite's text without layout; "svg" / "png" are laid out with dot and
 * rendered into memory by gvRenderData, PNG fitted (dot_fit, filled when
 * `fit` is not NULL; zeroed for other formats), and only then written: Graphviz
 * never writes a file itself.  On failure nothing is left at `path` (an
 * existing file there is untouched) and no temporary file either. */
int dot_write(Agraph_t *g, const char *path, const char *fmt, dot_fit *fit, hs_error *err);

/* Writes `g` to an open stream (used for `-o -`), rendered in memory
 * first; a write that fails is HS_EDATA with its errno.  The caller
 * flushes and closes it. */
int dot_write_stream(Agraph_t *g, FILE *fp, const char *fmt, dot_fit *fit, hs_error *err);

/* dot_build + dot_write. */
int dot_export(const region *r, const dot_opts *o, const char *path,
	       const char *fmt, dot_fit *fit, hs_error *err);

/* The shared Graphviz context (created on first use with its plugins), or
 * NULL with err set when the dot layout plugin cannot be loaded. */
GVC_t *dot_context(hs_error *err);
/* gvLayout(gvc, g, "dot").  Under LeakSanitizer what Graphviz allocates
 * meanwhile is left out of the leak check (see dot.c).  0, or -1: see
 * dot_gv_out_of_memory and dot_graph_lost. */
int dot_gv_layout(GVC_t *gvc, Agraph_t *g);
/* 1 when the last layout or render failed because an allocation failed in
 * Graphviz (HS_ENOMEM for the caller). */
int dot_gv_out_of_memory(void);
/* 1 when Graphviz faulted out of memory while working on g (dot.c, "when
 * Graphviz runs out of memory"): g must not be touched again, not even
 * freed; dot_close leaves it. */
int dot_graph_lost(const Agraph_t *g);
/* agclose(g), unless g is lost. */
void dot_close(Agraph_t *g);
/* fn(ctx), for calls into Graphviz that allocate: its result, or -2 when
 * Graphviz faulted out of memory inside (dot.c, "when Graphviz runs out of
 * memory"); what it was making is then lost (dot_lose_graph). */
int dot_guarded(int (*fn)(void *), void *ctx);
/* Marks g lost: dot_close leaves it. */
void dot_lose_graph(Agraph_t *g);
/* Routes Graphviz's error messages to the text dot_write reports (used by
 * dot_build.c). */
void dot_catch_errors(void);
/* Frees the shared context (safe to call when none was made). */
void dot_shutdown(void);

/* The two label lines of node `id` as the terminal shows them:
 * "1234 convolution" and the HLO shape text, or with real HLO names
 * "1234 dot.42" and "dot f32[8,16]{1,0}", each cut to `maxw` columns with
 * "…" (UTF-8, `cap` bytes each).  Returns the wider line's width. */
int dot_node_lines(const hs_graph *g, int64_t id, int maxw, char *l1, char *l2,
		   size_t cap);
/* The same for box k of a region: its computation's name and "fusion, 14
 * nodes"; and for a placeholder: "12 more users" / "1,478 more operands". */
int dot_box_lines(const region *r, int64_t k, int maxw, char *l1, char *l2, size_t cap);
void dot_more_label(const region_more *m, int operands, char *buf, size_t cap);
/* The label of stub k: "↑ dot.42" (a node) or "↑ layer_3" (a box), cut to
 * maxw columns.  Returns its width. */
int dot_stub_label(const region *r, int64_t k, int maxw, char *buf, size_t cap);
/* Copies `src` into dst (cap bytes) cut to `maxw` columns with "…". */
void dot_cut_text(char *dst, size_t cap, const char *src, int maxw);
/* A name from the input as a drawing shows it (in the terminal and in a
 * file): escaped as base/escape.h says (ESC as the text \x1b), s itself
 * when it needs nothing, else in buf (cut to cap).  The labels above are
 * made of such names; DOT and SVG output double the backslash. */
const char *dot_esc_name(const char *s, char *buf, size_t cap);

/* The opcode category node `id` is drawn in: the learned opcode's, or for
 * an opcode the dataset never learned (as written on a module) that of its
 * synchronous twin (all-to-all-start: all-to-all), collective or other. */
hlo_category dot_node_category(const hs_graph *g, int64_t id);

/* Heat helpers shared with the terminal drawing: the bin (0..DOT_HEAT_BINS-1)
 * of value v on the scale of [lo, hi], or -1 for NaN; and the bin's color. */
#define DOT_HEAT_BINS 8
typedef struct dot_heat_scale {
	double lo, hi;          /* finite min and max of the values */
	int log;                /* 1 when binned on log10 */
	int any;                /* 0 when no finite value */
} dot_heat_scale;
void dot_heat_scale_of(const double *v, const int64_t *ids, int64_t n, int log_mode,
		       dot_heat_scale *s);
int dot_heat_bin(const dot_heat_scale *s, double v);
const char *dot_heat_fill(int bin); /* "#rrggbb" */
/* The lower bound of bin b on the scale (b == DOT_HEAT_BINS gives hi). */
double dot_heat_edge(const dot_heat_scale *s, int b);
/* The heat of each group box of a region: the sum of the finite values of
 * its nodes (those of o->heat_sum), NaN when none has one; [r->n_boxes],
 * NaN for computation boxes (malloc'd; NULL when out of memory or no
 * heat).  And the scale over the region's nodes and those boxes. */
double *dot_box_heat(const region *r, const dot_opts *o);
void dot_heat_scale_region(const region *r, const dot_opts *o, const double *box_heat,
			   dot_heat_scale *s);

#endif
