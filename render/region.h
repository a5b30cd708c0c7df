/* region.h - which part of a graph to draw.
 *
 * A region is a set of node ids of one hs_graph, the edges among them and,
 * for radius regions, dashed "N more users" placeholders standing for the
 * users of a busy node that were left out (as XLA's graph dumper does).
 *
 * Edges are HLO operands (graph.h): one edge from each operand to its user,
 * a repeated operand (multiply(x, x)) once; region_edge_label() gives its
 * operand indices ("0,1") where the user has several operands.  Called
 * computations are the calls relation, not operands: a call edge joins the
 * callee's root (or the callee's box, below) to its caller.  On a bare .npz
 * the edges are the dataset's (call edges included, no call steps) and carry
 * no labels, as before.
 *
 * Five kinds:
 *   REGION_AROUND        nodes within `radius` steps of `center`, following
 *                        operands, users or both (undirected), calls
 *                        included; the users of a node other than the
 *                        center with more than `user_threshold` users are
 *                        not followed but collapsed into one placeholder,
 *                        and likewise the operands of a node other than the
 *                        center with more than `operand_threshold` operands
 *                        ("1,478 more operands" is one box, not 1,478).
 *                        When the region is over the limit (or
 *                        `collapse_center` is set) and the center itself
 *                        has more operands (users) than the threshold, the
 *                        center keeps its first ones (in HLO order) and
 *                        the rest are one placeholder too
 *                        (`center_collapsed`), before the limit refuses;
 *   REGION_PATH          every node on a dependency path between `from` and
 *                        `to` (either may be the consumer), capped at
 *                        `max_nodes` and at the work budget (below): whole
 *                        sets of the paths of length <= shortest + s for
 *                        the largest s that fits, else one shortest path
 *                        (`truncated` is set);
 *   REGION_COMPUTATION   either a real HLO computation `hcomp` (an index
 *                        in g->hcomps): its nodes, and the computations it
 *                        calls (which are boxes unless expanded; an
 *                        expanded one brings its own callees in turn); or,
 *                        when `hcomp` is -1, the nodes of node_splits
 *                        segment `comp` (a "split");
 *   REGION_NODES         the given ids (a query result) and the edges
 *                        among them;
 *   REGION_CONFIGURABLE  the configurable nodes of a layout graph and their
 *                        immediate operands and users.
 * Then the HLO structure (graph.h): a called computation (fusion body, while
 * body or condition, reducer, branch, ...) that a node of the region calls
 * and that has nodes in the region is collapsed into one box standing for
 * the whole computation (its name, role and node count), unless it holds
 * what the region is about (the center; the configurable nodes; PATH and
 * NODES regions collapse nothing) or `expand` names it (region_collapse.c);
 * edges into and out of it go to the box.  `expand` is NULL (collapse),
 * "all" (collapse nothing: the nodes the region reached are drawn), or
 * computation names separated by commas: each named computation that the
 * region reaches or calls is drawn whole, every node of its body.
 *
 * A sixth kind, REGION_LAYER, is a namespace of op_name (model/layers.h,
 * which this layer cannot read: the caller gives the nodes at or under it
 * in `ids` and their grouping in `groups`): the namespace's own nodes, and
 * one box per child namespace (or per run of repeated ones).
 *
 * Groups: `groups` (region_groups, below) maps nodes to groups, each drawn
 * as one box (its label, size and cost as the caller wrote them) with the
 * edges between them; a group takes its nodes before any called
 * computation does (region_collapse.c).
 *
 * Limits: a region with more than `limit` boxes (nodes and collapsed boxes;
 * default 500, REGION_FILE_LIMIT for drawings to a file) is refused unless
 * `force` is set, or, when `collapse` asks for it, collapsed: the nodes
 * grouped by layer (the caller's `grouper`) or by computation until it
 * draws at most `limit` boxes, as r->note says.  A region whose layout
 * would keep Graphviz busy for long, `work` (nodes, edges, and the ranks
 * long edges cross, each of which Graphviz lays out as one more node) over
 * `max_work` (default REGION_DEFAULT_WORK), is refused, or, with
 * `cut_long_edges`, has its longest edges cut into stubs (region_stub: a
 * small box beside the user naming the operand) until it fits, and is
 * refused when even that does not do.  The message
 * gives the size and what to try instead, in the words of the front end
 * that asked (`words`): the library names no option of any front end.
 *
 * `limit` <= 0 means no limit.
 *
 * Ownership: region_select() returns a region freed by region_free().  The
 * region borrows the graph (r->g), which must outlive it; `ids` in the spec
 * is copied.
 */
#ifndef HS_REGION_H
#define HS_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "loader/graph.h"

typedef enum region_kind {
	REGION_AROUND,
	REGION_PATH,
	REGION_COMPUTATION,
	REGION_NODES,
	REGION_CONFIGURABLE,
	REGION_LAYER,
} region_kind;

/* What a region over its limit turns into (region_spec.collapse). */
typedef enum region_collapse_mode {
	REGION_COLLAPSE_NONE,        /* refused (the default) */
	REGION_COLLAPSE_AUTO,        /* grouped by layer when the grouper finds
	                              * layers, else by computation */
	REGION_COLLAPSE_LAYER,       /* grouped by layer, over the limit or not */
	REGION_COLLAPSE_COMPUTATION, /* one box per computation, over the limit or not */
} region_collapse_mode;

typedef enum region_dir {
	REGION_OPERANDS = 1,
	REGION_USERS = 2,
	REGION_BOTH = 3,
} region_dir;

#define REGION_DEFAULT_LIMIT 500
/* The boxes of a drawing to a file or as text (dot, export): Graphviz lays
 * out that many within seconds when its edges are short (region_stub). */
#define REGION_FILE_LIMIT 2500
/* The boxes of a region collapsed because the front end asked for it
 * (--collapse layer) rather than because it is over the limit. */
#define REGION_COLLAPSE_LIMIT 100
#define REGION_DEFAULT_USER_THRESHOLD 16
#define REGION_DEFAULT_OPERAND_THRESHOLD 16
/* Layout work (region_work.total) a region may need without `force`:
 * about 3.5 s of Graphviz on this machine's 2 cores for an SVG of 4,000
 * boxes (measured on real modules: see region_work.c), so that a PNG or a
 * terminal drawing of 2,500 boxes stays within 10 s. */
#define REGION_DEFAULT_WORK 12000

/* How a front end spells the ways out of a refused region, each an option
 * of its own: the CLI's "--radius", the query language's "radius".  A
 * refusal suggests the ways whose word is set; a NULL field, or NULL
 * `words` in the spec, leaves that way out of the message (the explorer
 * chooses the radius itself).  A word is followed by its value where it
 * takes one ("--radius 7", "--limit 2312"). */
typedef struct region_words {
	const char *around;       /* a region around a node:        "--around ID" */
	const char *radius;       /* its radius, before a number:   "--radius" */
	const char *direction;    /* one direction only:            "--direction operands or users" */
	const char *computation;  /* one computation, before a name: "--computation" */
	const char *limit;        /* the node limit, before a number: "--limit" */
	const char *max_nodes;    /* the path cap, before a number: "--max-nodes" */
	const char *max_users;    /* the user threshold:            "--max-users" */
	const char *max_operands; /* the operand threshold:         "--max-operands" */
	const char *force;        /* every limit lifted:            "--force" */
	const char *collapse;     /* grouped by layer:              "--collapse layer" */
} region_words;

/* Groups of nodes, each drawn as one box (REGION_LAYER's child namespaces,
 * a region collapsed by layer or by computation).  Made by
 * region_groups_init and filled by the caller; freed by region_groups_free. */
typedef struct region_groups {
	int32_t *of;          /* [g->n_nodes]: each node's group, -1: none (drawn as itself) */
	int64_t n;            /* groups */
	char **label;         /* [n] the box's first line: "layer_3", "layer_0..23 x24" */
	char **detail;        /* [n] its second line: "412 nodes, 1.21 ms" (NULL: the count) */
	char **tip;           /* [n] its tooltip (NULL: label and detail) */
	char what[32];        /* what a group is: "layer", "computation" */
	char note[400];       /* how the grouping was chosen ("" when asked for) */
	hs_arena arena;       /* the arrays and strings above */
} region_groups;

/* of[] all -1 and n empty labels; 0, or -1 with err set (out of memory). */
int region_groups_init(region_groups *gr, const hs_graph *g, int64_t n, hs_error *err);
/* Copies text into the arena (NULL when out of memory). */
char *region_groups_strdup(region_groups *gr, const char *text);
void region_groups_free(region_groups *gr);
/* One group per computation of the nodes listed (every node of the graph
 * when nodes is NULL), labelled with the computation's name and role and
 * detailed with the count.  0, or -1 with err set. */
int region_groups_by_computation(const hs_graph *g, const int64_t *nodes, int64_t n,
				 region_groups *out, hs_error *err);

/* The caller's grouping of a region over its limit: the nodes (ascending
 * ids) of the region, the most boxes it may draw and the mode asked for
 * (LAYER or AUTO); fills *out (region_groups_init) so that the nodes draw
 * in at most `limit` boxes, or leaves out->n at 0 when it finds no such
 * grouping (then the region is grouped by computation, or refused).  0, or
 * -1 with err set. */
typedef int (*region_grouper)(void *ctx, const hs_graph *g, const int64_t *nodes, int64_t n,
			      int64_t limit, region_collapse_mode mode, region_groups *out,
			      hs_error *err);

typedef struct region_spec {
	region_kind kind;
	int64_t center;         /* AROUND */
	int64_t radius;         /* AROUND, >= 0 */
	region_dir dir;         /* AROUND, default BOTH */
	int64_t user_threshold; /* AROUND: collapse users past this; 0 = never */
	int64_t operand_threshold; /* AROUND: collapse operands past this; 0 = never */
	int collapse_center;    /* AROUND: REGION_USERS, REGION_OPERANDS or both:
	                         * those thresholds hold at the center too, not
	                         * only when the region is over the limit */
	const char *expand;     /* called computations drawn in full: NULL, "all"
	                         * or names separated by commas (borrowed) */
	int64_t from, to;       /* PATH */
	int64_t max_nodes;      /* PATH cap; 0 = use `limit` */
	int64_t comp;           /* COMPUTATION: node_splits segment */
	int64_t hcomp;          /* COMPUTATION: real computation, or -1 (then `comp`) */
	const int64_t *ids;     /* NODES: ids (any order, duplicates ok) */
	size_t n_ids;
	int64_t limit;          /* refuse larger regions; default 500 */
	int64_t max_work;       /* refuse regions of more layout work; 0 = default */
	int force;              /* lay out whatever the size and work */
	const region_words *words; /* the ways a refusal suggests (borrowed); NULL: none */
	const region_groups *groups; /* LAYER (else NULL): nodes drawn as group boxes (borrowed) */
	const char *layer;      /* LAYER: the namespace's path, for the title and key */
	region_collapse_mode collapse; /* over the limit: refused (NONE) or grouped */
	region_grouper grouper; /* groups by layer; NULL: by computation only */
	void *grouper_ctx;
	int cut_long_edges;     /* over the work budget: cut the longest edges
	                         * into stubs (region_stub) rather than refuse */
} region_spec;

/* What laying a region out costs Graphviz: its nodes (boxes and
 * placeholders included), its edges, the ranks of its longest chain, and
 * the ranks its edges cross beyond their first (Graphviz's "virtual
 * nodes", which dominate its time on long edges).  total = nodes + edges +
 * crossed. */
typedef struct region_work {
	int64_t nodes, edges, ranks, crossed, total;
} region_work;

/* Placeholder for users (or operands) left out of an AROUND region. */
typedef struct region_more {
	int64_t owner;  /* the node whose users (operands) were collapsed */
	int64_t hidden; /* how many of its users (operands) are not in the region */
} region_more;

/* A called computation, or a group, drawn as one box. */
typedef struct region_box {
	int64_t comp;   /* index in g->hcomps; -1 for a group */
	int64_t inside; /* nodes of the region it stands for */
	int64_t group;  /* index in the region's groups; -1 for a computation */
} region_box;

/* A link's drawing: the node whose value it carries (the operand, or the
 * root of a callee), and whether it is a call rather than an operand. */
typedef struct region_link {
	int64_t value;
	int call;
} region_link;

/* A long edge cut (region.h): drawn as a small box beside its user naming
 * the operand, joined to the user by a short edge. */
typedef struct region_stub {
	int64_t user;     /* a node, or a box (REGION_BOX_REF) */
	int64_t operand;  /* likewise: what the stub names */
	int64_t value;    /* the node whose value the edge carries */
	int call;         /* 1: a call edge */
	char label[16];   /* the operand indices in the user, as region_edge_label */
} region_stub;

/* In region.links, box k of region.boxes is written REGION_BOX_REF(k). */
#define REGION_BOX_REF(k) (-2 - (int64_t)(k))
#define REGION_IS_BOX(ref) ((ref) <= -2)
#define REGION_BOX_INDEX(ref) (-2 - (ref))

typedef struct region {
	const hs_graph *g;      /* borrowed */
	region_kind kind;
	int64_t n_nodes;
	int64_t *nodes;         /* [n_nodes] node ids, ascending */
	int64_t n_edges;
	int64_t (*edges)[2];    /* [n_edges] {user, operand}, both in the region,
	                         * sorted by user then operand; repeated operands
	                         * (x * x) give repeated edges as in the file */
	int64_t n_more;
	region_more *more;      /* [n_more] sorted by owner */
	int64_t n_fanin;
	region_more *fanin;     /* [n_fanin] "N more operands", sorted by owner */
	int64_t n_boxes;
	region_box *boxes;      /* [n_boxes] collapsed computations, by index,
	                         * then the groups, by index */
	int64_t n_links;
	int64_t (*links)[2];    /* [n_links] {user, operand} where one or both are
	                         * boxes (REGION_BOX_REF); each pair once, sorted */
	region_link *link_info; /* [n_links] what each link carries */
	int64_t n_stubs;
	region_stub *stubs;     /* [n_stubs] long edges cut (region.h), by user */
	const region_groups *groups; /* the grouping drawn (the spec's, or owned), or NULL */
	region_groups *own_groups; /* made for a region over its limit */
	int64_t grouped;        /* region nodes the group boxes stand for */
	char note[600];         /* what was done to fit ("" when nothing): collapsed
	                         * by layer or computation, long edges cut */
	int64_t n_calls;
	int64_t (*calls)[2];    /* [n_calls] {caller, callee's root}, both drawn
	                         * nodes (a module only; on a bare .npz the call
	                         * edges are among `edges`); sorted */
	int64_t collapsed;      /* region nodes the boxes stand for */
	int center_collapsed;   /* AROUND: REGION_USERS, REGION_OPERANDS (or both):
	                         * the center's users or operands past the
	                         * thresholds are placeholders */
	region_work work;       /* filled by region_select */
	int64_t focus;          /* AROUND center, PATH from; else -1 */
	int64_t focus2;         /* PATH to; else -1 */
	int truncated;          /* PATH: paths were left out to fit max_nodes */
	int64_t omitted;        /* PATH: nodes on paths left out */
	char key[96];           /* identifies the region in a graph, e.g.
	                         * "around:1234:r2:both:u16" (cache key) */
	char title[256];        /* "unet3d: 2 steps around node 1234 (both)"; on a
	                         * module "jit_f: 2 steps around dot.42 (node 1234,
	                         * both)" */
} region;

/* Defaults: kind AROUND, center 0, radius 1, both directions, threshold 16,
 * limit 500, no force, no collapse, from/to/comp/hcomp/focus -1. */
void region_spec_init(region_spec *s);

/* Errors (HS_EUSAGE): node id or computation out of range, negative radius,
 * no path between the two nodes, a layout-only region on a tile graph, a
 * region over the limit or the work budget. */
region *region_select(const hs_graph *g, const region_spec *s, hs_error *err);
void region_free(region *r);

/* For an AROUND spec: the largest radius <= s->radius whose region fits
 * s->limit (placeholders not counted; the center collapsed when that is
 * what makes it fit) and the work budget, or -1 when even radius 0 does
 * not (or the spec is not valid).  Lets a view shrink instead of failing. */
int64_t region_fit_radius(const hs_graph *g, const region_spec *s);

/* Collapses the called computations of a region into boxes, as the top of
 * this file says (region_select calls it).  0, or -1 with err set (out of
 * memory; an `expand` name that is no computation of the graph). */
int region_collapse(region *r, const region_spec *s, hs_error *err);

/* 1 when `expand` (NULL, "all" or names separated by commas) draws
 * computation c in full. */
int region_expands(const hs_graph *g, const char *expand, int64_t c);

/* The label of edge k of r->edges: the operand indices of the operand in
 * its user, "2" or, for a repeated operand, "0,1" (cut with "…" past cap),
 * when the user has more than one operand on a module; "" otherwise (a bare
 * .npz, whose edges are not the HLO operands).  Returns buf. */
const char *region_edge_label(const region *r, int64_t k, char *buf, size_t cap);

/* "485 nodes and 692 edges on 290 ranks, whose edges cross 19,959 ranks
 * more (layout work 21,136)"; like snprintf. */
int region_work_text(const region_work *w, char *buf, size_t cap);

/* "dot.42 (node 1234)" on a module, "node 1234" on a bare .npz (whose
 * names are derived); for titles and messages.  Returns buf. */
const char *region_node_ref(const hs_graph *g, int64_t id, char *buf, size_t cap);

/* Position of node `id` in r->nodes, or -1. */
int64_t region_index_of(const region *r, int64_t id);

const char *region_dir_name(region_dir d);   /* "operands", "users", "both" */
/* Parses "operands" / "users" / "both"; returns -1 for anything else. */
int region_dir_parse(const char *s);

#endif
