/* hloscope dot FILE REGION [-o OUT] [-T dot|svg|png] [--heat FIELD] [--data FILE]
 *              [--limit N] [--collapse MODE] [--force] [--highlight IDS]
 *              [--compare A B] [--text] [--cells] [--progress]
 *
 * Draws a region of an HLO graph with Graphviz (linked, no `dot` process):
 * to a DOT, SVG or PNG file (written to a temporary file and renamed), and
 * with --text as box-drawing text on stdout.  See `hloscope dot --help`. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/parse.h"
#include "base/plural.h"
#include "base/progress.h"
#include "base/vec.h"
#include "cli/cli.h"
#include "cli/dotcli.h"
#include "cli/opts.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "model/compare.h"
#include "query/draw_groups.h"
#include "query/query.h"
#include "render/render.h"

typedef struct dot_args {
	const char *file, *out, *fmt, *heat, *layer, *around, *expand, *computation, *nodes, *highlight;
	const char *path[2], *compare[2];
	cli_data data;
	int64_t radius, max_users, max_operands, max_nodes, split, limit, max_work; /* -1: not given */
	int direction;          /* a region_dir, 0 when not given */
	int collapse;           /* a region_collapse_mode, -1 when not given */
	int heat_scale;         /* dot_opts' heat_log: 0 linear, 1 log, -1 auto */
	int configurable, force, text, cells, timing, progress;
} dot_args;

static const char *const directions[] = {"operands", "users", "both", NULL};
static const int direction_vals[] = {REGION_OPERANDS, REGION_USERS, REGION_BOTH};
static const char *const collapses[] = {"auto", "layer", "computation", "none", NULL};
static const int collapse_vals[] = {REGION_COLLAPSE_AUTO, REGION_COLLAPSE_LAYER, REGION_COLLAPSE_COMPUTATION,
				    REGION_COLLAPSE_NONE};
static const char *const scales[] = {"linear", "log", "auto", NULL};
static const int scale_vals[] = {0, 1, -1};

/* The command line into a: 0, -1 after --help, or the exit status. */
static int parse_args(int argc, char **argv, dot_args *a)
{
	const cli_opt opts[] = {
		{NULL, .help = "REGION (exactly one; a node is its id or its name, dot.42):"},
		{"--around", "ID", CLI_STR, &a->around, .help = "nodes near node ID"},
		{"--radius", "K", CLI_INT64, &a->radius, .help = "steps to follow (default 1)", .sub = 1},
		{"--direction", "D", CLI_WORD, &a->direction, .help = "operands, users or both (default both)",
		 .words = directions, .vals = direction_vals, .sub = 1},
		{"--max-users", "N", CLI_INT64, &a->max_users, .help = "collapse the users of nodes with more than N users\n"
		 "into one \"N more users\" box (default 16, 0 = never)", .sub = 1},
		{"--max-operands", "N", CLI_INT64, &a->max_operands, .help = "likewise \"N more operands\" (default 16, 0 = never)\n"
		 "The center keeps all of its own unless the region\n"
		 "would be over --limit, or the option is given: then\n"
		 "it keeps its first N (in HLO order) and one box", .sub = 1},
		{"--path", "A B", CLI_PAIR, a->path, .help = "every path between nodes A and B"},
		{"--max-nodes", "N", CLI_INT64, &a->max_nodes, .help = "keep at most N nodes, shortest paths first (also\n"
		 "within --max-work)", .min = 1, .sub = 1},
		{"--computation", "NAME", CLI_STR, &a->computation, .help = "the HLO computation NAME (fused_computation.3, entry;\n"
		 "computation.K on a bare .npz), its callees as boxes;\n"
		 "a plain number K: node_splits segment K, as --split K\n"
		 "(kept for scripts written before names)"},
		{"--split", "K", CLI_INT64, &a->split, .help = "node_splits segment K (0 ..; a layout graph's splits)"},
		{"--configurable", NULL, CLI_FLAG, &a->configurable, .help = "configurable nodes of a layout graph and their "
		 "neighbours"},
		{"--nodes", "IDS", CLI_STR, &a->nodes, .help = "these nodes (\"1,5,9-12\") and the edges among them"},
		{"--layer", "PATH", CLI_STR, &a->layer, .help = "the op_name namespace PATH (jit(f)/transformer/layer_3;\n"
		 "\"/\" the whole module): its own nodes, and one box per\n"
		 "child namespace with its size and analytic cost; a run\n"
		 "of repeated blocks is one box, \"layer_0..23 x24\""},
		{NULL, .help = "\nA called computation (fusion body, while body or condition, reducer, ...)\n"
		 "that the region reaches is drawn as one box with its name, role and size;\n"
		 "nodes are grouped in one cluster per HLO computation."},
		{"--expand", "NAMES", CLI_STR, &a->expand, .help = "draw these computations (comma-separated) whole,\n"
		 "every node of the body, when the region reaches or\n"
		 "calls them; all: collapse nothing (the nodes the\n"
		 "region reached).  With --layer, NAMES may be child\n"
		 "namespaces (their own nodes drawn, their children\n"
		 "boxes; `mlp` opens every one of that name,\n"
		 "`layer_3/mlp` one) and computations"},
		{NULL, .help = "\nOutput:"},
		CLI_OUTPUT_OPT(&a->out, ".dot, .svg or .png file (\"-\" for stdout, with -T); a PNG\n"
			       "keeps every side within 16,000 px: one over it (or a strip\n"
			       "4 times longer than wide) is drawn left to right, then\n"
			       "scaled down, as stderr says; SVG keeps the full size."),
		{"-T|--format", "FMT", CLI_STR, &a->fmt, .help = "dot, svg or png (overrides OUT's extension)"},
		{"--text", NULL, CLI_FLAG, &a->text, .help = "print the terminal drawing to stdout; one wider than\n"
		 "COLUMNS (or the terminal) is printed in strips of that\n"
		 "width, left to right, as its first line says"},
		{"--cells", NULL, CLI_FLAG, &a->cells, .help = "DOT output sized in terminal cells, as --text lays it out"},
		{"--heat", "FIELD", CLI_STR, &a->heat, .help = "fill nodes by a number, with a legend: a node field of the\n"
		 "query language (a feature by name or index, cost in\n"
		 "seconds, flops, bytes, a column of --data) or an\n"
		 "expression of them (\"flops / bytes\"); a box is filled\n"
		 "by the sum over its executed instructions"},
		{"--heat-scale", "S", CLI_WORD, &a->heat_scale, .help = "linear, log or auto (default)", .words = scales,
		 .vals = scale_vals},
		CLI_DATA_OPTS(&a->data),
		CLI_MACHINE_OPT,
		{"--highlight", "IDS", CLI_STR, &a->highlight, .help = "draw these nodes with a thick blue border"},
		{"--compare", "A B", CLI_PAIR, a->compare, .help = "highlight the nodes whose values differ between configs\n"
		 "A and B (index, best, worst or default; model/compare.h),\n"
		 "each with its layouts A -> B, and a legend"},
		{"--limit", "N", CLI_INT64, &a->limit, .help = "draw at most N boxes (default 2,500): a larger region is\n"
		 "collapsed (--collapse), as stderr and the legend say"},
		{"--collapse", "MODE", CLI_WORD, &a->collapse, .help = "what a region over --limit becomes: auto (default: by\n"
		 "layer where op_name has layers, else by computation),\n"
		 "layer or computation (also within the limit: then at\n"
		 "most 100 boxes, or --limit), none (refused, with its\n"
		 "size and what to do)", .words = collapses, .vals = collapse_vals},
		{"--max-work", "N", CLI_INT64, &a->max_work, .help = "the layout work Graphviz may take: nodes + edges + the\n"
		 "ranks long edges cross (default 12,000, a few seconds;\n"
		 "--time prints it); over it the longest edges are cut\n"
		 "into stubs beside their users, and a region still over\n"
		 "it is refused at once"},
		{"--force", NULL, CLI_FLAG, &a->force, .help = "lay out any size: nothing collapsed, cut or refused"},
		{"--progress", NULL, CLI_FLAG, &a->progress, .help = "say what is being done on stderr every second (on a\n"
		 "terminal it is shown anyway, on one line)"},
		{"--time", NULL, CLI_FLAG, &a->timing, .help = "print where the time went, and the region's size, to stderr"},
		{0}};
	const cli_spec spec = {"dot",
			       "Draws part of an HLO graph with Graphviz: edges go from operand to user,\n"
			       "nodes are colored by opcode category as XLA's graph dumper does.  Edges are\n"
			       "the HLO operands: where a node has several, each edge is labelled with the\n"
			       "operand's index (\"0,1\" for multiply(x, x)).  A node that calls a\n"
			       "computation is joined to it by a dotted call edge (from its root or box).\n"
			       "On a bare .npz the edges are the dataset's, call edges included.",
			       opts, .max_args = 1};
	cli_args args;
	int rc;

	memset(a, 0, sizeof *a);
	a->radius = a->max_users = a->max_operands = a->max_nodes = a->split = a->limit = a->max_work = -1;
	a->collapse = a->heat_scale = -1;
	if ((rc = cli_parse(&spec, argc, argv, &args)) != 0)
		return rc;
	a->file = args.n ? args.v[0] : NULL;
	int kinds = !!a->around + !!a->path[0] + !!a->computation + (a->split >= 0) + a->configurable +
		    !!a->nodes + !!a->layer;
	if (!a->file)
		return cli_usage_error("dot", "needs a FILE");
	if (kinds == 0)
		return cli_usage_error("dot", "needs a region: --around ID, --path A B, "
				       "--computation NAME, --split K, --configurable, --nodes IDS or "
				       "--layer PATH");
	if (kinds > 1)
		return cli_usage_error("dot", "give one region only (--around, --path, "
				       "--computation, --split, --configurable, --nodes or --layer)");
	if ((a->radius >= 0 || a->direction || a->max_users >= 0 || a->max_operands >= 0) && !a->around)
		return cli_usage_error("dot", "--radius, --direction, --max-users and --max-operands "
				       "go with --around");
	if (a->max_nodes >= 0 && !a->path[0])
		return cli_usage_error("dot", "--max-nodes goes with --path");
	if (!a->out && !a->text)
		return cli_usage_error("dot", "needs -o OUT or --text");
	return 0;
}

typedef HS_VEC(int64_t) id_vec;

static int add_ids(void *ctx, int64_t a, int64_t b)
{
	for (int64_t v = a; v <= b; v++)
		if (hs_vec_push((id_vec *)ctx, v) != 0)
			return -1;
	return 0;
}

/* Parses "1,5,9-12" (ids and ranges) into a new array.  0, or the exit
 * status after printing what is wrong. */
static int parse_ids(const char *opt, const char *s, int64_t **ids, size_t *n)
{
	id_vec v = {0};
	const char *at;
	size_t len;
	int item = cli_id_list(s, add_ids, &v, &at, &len);

	*ids = v.v;
	*n = v.n;
	if (!item)
		return 0;
	hs_vec_free(&v);
	*ids = NULL;
	if (item < 0)
		return cli_oom("reading %s", opt);
	if (!len)
		return cli_usage_error("dot", "%s needs node ids like 1,5,9-12, not '%s': item %d is empty", opt, s,
				       item);
	return cli_usage_error("dot", "%s needs node ids like 1,5,9-12, not '%s': item %d, '%.*s'", opt, s, item,
			       (int)len, at);
}

/* A node id, or -2 for a name resolved once the graph is open
 * (resolve_node). */
static int node_opt(const char *opt, const char *s, int64_t *out)
{
	if (hs_parse_i64(s, out)) {
		if (!*s || *s == '-' || (*s >= '0' && *s <= '9'))
			return cli_usage_error("dot", "%s needs a node id or name, not '%s'", opt, s);
		*out = -2;
	}
	return 0; /* range is checked by region_select against the graph */
}

/* Node `*id` named `text` when node_opt left -2.  0, or the exit status. */
static int resolve_node(const hs_graph *g, const char *opt, const char *text, int64_t *id)
{
	char buf[160];

	if (*id != -2)
		return 0;
	const char *name = text[0] == '%' ? text + 1 : text;
	*id = graph_find_node(g, name);
	if (*id >= 0)
		return 0;
	if (query_suggest_node(g, name, buf, sizeof buf))
		return cli_usage_error("dot", "%s: %s has no node named '%s' (did you mean '%s'?)", opt,
				       g->name, text, buf);
	return cli_usage_error("dot", "%s: %s has no node named '%s' (names look like %s)", opt,
			       g->name, text, g->n_nodes ? graph_node_name(g, 0, buf, sizeof buf) : "dot.42");
}

/* The computation named `text` when build_spec left -2.  0, or the exit
 * status (a name the graph does not have, with the closest one). */
static int resolve_computation(const hs_graph *g, const char *text, int64_t *hcomp)
{
	char buf[160];

	if (*hcomp != -2)
		return 0;
	*hcomp = graph_find_hcomp(g, text);
	if (*hcomp >= 0)
		return 0;
	if (query_suggest_computation(g, text, buf, sizeof buf))
		return cli_usage_error("dot", "--computation: %s has no computation named '%s' "
				       "(did you mean '%s'?)", g->name, text, buf);
	return cli_usage_error("dot", "--computation: %s has no computation named '%s' (the "
			       "query `count by computation_name` lists them)", g->name, text);
}

/* The ways out of a refused region, as dot's options (render/region.h): the
 * library describes the region, dot names the flags. */
static const region_words dot_words = {
	.around = "--around ID",
	.radius = "--radius",
	.direction = "--direction operands or users",
	.computation = "--computation",
	.limit = "--limit",
	.max_nodes = "--max-nodes",
	.max_users = "--max-users",
	.max_operands = "--max-operands",
	.force = "--force",
	.collapse = "--collapse layer",
};


static int build_spec(const dot_args *a, region_spec *s, int64_t **ids)
{
	region_spec_init(s);
	s->words = &dot_words;
	*ids = NULL;
	s->force = a->force;
	s->expand = a->expand;
	s->limit = REGION_FILE_LIMIT;
	s->collapse = a->collapse >= 0 ? (region_collapse_mode)a->collapse : REGION_COLLAPSE_AUTO;
	s->cut_long_edges = 1;
	/* asked for, a collapse draws a picture of the whole, not 2,500 boxes */
	if (s->collapse == REGION_COLLAPSE_LAYER || s->collapse == REGION_COLLAPSE_COMPUTATION)
		s->limit = REGION_COLLAPSE_LIMIT;
	if (a->limit == 0 || a->max_work == 0)
		return cli_usage_error("dot", "%s must be 1 or more (or use --force)",
				       a->limit == 0 ? "--limit" : "--max-work");
	if (a->limit > 0)
		s->limit = a->limit;
	if (a->max_work > 0)
		s->max_work = a->max_work;
	if (a->around) {
		s->kind = REGION_AROUND;
		if (node_opt("--around", a->around, &s->center))
			return 1;
		if (a->radius >= 0)
			s->radius = a->radius;
		if (a->direction)
			s->dir = (region_dir)a->direction;
		if (a->max_users >= 0)
			s->user_threshold = a->max_users;
		if (a->max_operands >= 0)
			s->operand_threshold = a->max_operands;
		/* asked for: the center's crowd is collapsed too */
		s->collapse_center = (a->max_users >= 0 ? REGION_USERS : 0) |
				     (a->max_operands >= 0 ? REGION_OPERANDS : 0);
	} else if (a->path[0]) {
		s->kind = REGION_PATH;
		if (node_opt("--path", a->path[0], &s->from) || node_opt("--path", a->path[1], &s->to))
			return 1;
		if (a->max_nodes > 0)
			s->max_nodes = a->max_nodes;
	} else if (a->split >= 0) {
		s->kind = REGION_COMPUTATION;
		s->comp = a->split;
	} else if (a->computation) {
		/* A plain number stays the node_splits segment it always was; a
		 * name is resolved once the graph is open (resolve_computation). */
		s->kind = REGION_COMPUTATION;
		if (hs_parse_i64(a->computation, &s->comp))
			s->hcomp = -2;
		else if (s->comp < 0)
			return cli_usage_error("dot", "--computation needs a name or a split number, "
					       "not '%s'", a->computation);
	} else if (a->configurable) {
		s->kind = REGION_CONFIGURABLE;
	} else if (a->layer) {
		s->kind = REGION_LAYER; /* the nodes and groups once the graph is open */
	} else {
		s->kind = REGION_NODES;
		int st = parse_ids("--nodes", a->nodes, ids, &s->n_ids);
		if (st)
			return st;
		s->ids = *ids;
	}
	return 0;
}

/* --compare A B: the changed nodes join the highlight (*hl, *n), each with
 * its values A -> B as a note, and the legend says what the border means.
 * 0, or the exit status after a message. */
static int compare_picture(hs_graph *g, const dot_args *a, int64_t **hl, size_t *n, char ***notes,
			   char *legend, size_t cap)
{
	hs_error err = {0};
	compare_opts o;
	int64_t *ch = NULL, m;

	compare_opts_init(&o);
	o.predict = 0;
	compare_result *r = compare_run(g, NULL, a->compare[0], a->compare[1], &o, &err);
	if (!r)
		return cli_report(&err);
	m = compare_changed_nodes(r, &ch);
	int64_t *grown = m > 0 ? realloc(*hl, (*n + (size_t)m) * sizeof *grown) : *hl;
	*notes = compare_node_notes(r);
	if (m < 0 || (m > 0 && !grown) || !*notes) {
		free(ch);
		compare_free(r);
		return cli_oom("marking the nodes whose configs differ");
	}
	if (m > 0) {
		memcpy(grown + *n, ch, (size_t)m * sizeof *ch);
		*hl = grown;
		*n += (size_t)m;
		compare_legend_text(r, legend, cap);
	} else {
		fprintf(stderr, "hloscope dot: configs %s and %s have the same values: nothing to highlight\n",
			a->compare[0], a->compare[1]);
	}
	free(ch);
	compare_free(r);
	return 0;
}

/* -o, -T, --cells and --heat-scale: the format into *fmt.  0, or the exit
 * status. */
static int output_opts(const dot_args *a, const char **fmt, dot_opts *opts)
{
	if (a->out && !*a->out)
		return cli_usage_error("dot", "-o needs a file name");
	if (a->out) {
		*fmt = a->fmt ? a->fmt : dot_format_for_path(a->out);
		if (!*fmt)
			return cli_usage_error("dot", "cannot tell the format of '%s' from its name; "
					       "use -T dot, svg or png", a->out);
		if (!dot_format_known(*fmt))
			return cli_usage_error("dot", "unknown format '%s' (dot, svg or png)", *fmt);
		if (a->cells && strcmp(*fmt, "dot") != 0)
			return cli_usage_error("dot", "--cells only applies to DOT output");
	} else if (a->fmt || a->cells) {
		return cli_usage_error("dot", "-T and --cells need -o OUT");
	}
	opts->heat_log = a->heat_scale;
	if (a->data.files.n && !a->heat)
		return cli_usage_error("dot", "--data gives fields for --heat: add --heat FIELD");
	if (a->collapse >= 0 && a->force)
		return cli_usage_error("dot", "--collapse and --force: --force draws every node, "
				       "collapsing nothing");
	return 0;
}

/* What a drawing holds beside its region. */
typedef struct dot_run {
	hs_graph *g;
	query_session *s;
	query_draw *d;
	query_layer_draw layer;
	int64_t *ids, *hl;
	size_t n_hl;
	double *heat;
	char heat_name[128];
	char **notes, legend[1024];
	dcli_timing tm;
} dot_run;

/* --progress: a line a second, and one when the work changes, on stderr
 * whatever stderr is. */
typedef struct progress_state {
	double next;
	char phase[96];
} progress_state;

static int progress_line(void *ctx, const char *what, double done, double total)
{
	progress_state *p = ctx;
	double now = hs_now_seconds();

	if (!what)
		return 0;
	const char *comma = strrchr(what, ',');
	size_t n = comma ? (size_t)(comma - what) : strlen(what);
	int same = strlen(p->phase) == n && !strncmp(p->phase, what, n);
	if (same && now < p->next)
		return 0;
	snprintf(p->phase, sizeof p->phase, "%.*s", (int)n, what);
	double *next = &p->next;
	if (total > 0)
		fprintf(stderr, "hloscope dot: %s %.0f%%\n", what, 100 * done / total);
	else
		fprintf(stderr, "hloscope dot: %s\n", what);
	*next = now + 1;
	return 0;
}

/* The graph's names resolved, the session with --data, the heat, the
 * highlight and the layer.  0, or the exit status. */
static int prepare(const dot_args *a, region_spec *spec, dot_opts *opts, dot_run *x)
{
	hs_error err = {0};
	hs_graph *g = x->g;
	int rc;

	if ((rc = resolve_node(g, "--around", a->around ? a->around : "", &spec->center)) != 0 ||
	    (rc = resolve_node(g, "--path", a->path[0] ? a->path[0] : "", &spec->from)) != 0 ||
	    (rc = resolve_node(g, "--path", a->path[1] ? a->path[1] : "", &spec->to)) != 0 ||
	    (rc = resolve_computation(g, a->computation ? a->computation : "", &spec->hcomp)) != 0)
		return rc;
	for (size_t i = 0; i < x->n_hl; i++)
		if (x->hl[i] >= g->n_nodes)
			return cli_usage_error("dot", "--highlight: node %" PRId64 " is out of range: "
					       "%s has %" PRId64 " node%s (0..%" PRId64 ")", x->hl[i],
					       g->name, g->n_nodes, hs_s(g->n_nodes), g->n_nodes - 1);
	if (a->compare[0] && (rc = compare_picture(g, a, &x->hl, &x->n_hl, &x->notes, x->legend,
						  sizeof x->legend)))
		return rc;
	opts->notes = (const char *const *)x->notes;
	opts->highlight_legend = x->legend[0] ? x->legend : NULL;
	opts->highlight = x->hl;
	opts->n_highlight = x->n_hl;
	x->s = query_session_new(g, &err);
	x->d = x->s ? query_draw_new(x->s, &err) : NULL;
	if (!x->d)
		return cli_report(&err);
	if ((rc = cli_load_data(x->s, &a->data)) != 0)
		return rc;
	if (a->heat) {
		x->heat = dcli_heat(x->d, g, a->heat, x->heat_name, sizeof x->heat_name, &rc);
		if (!x->heat)
			return rc;
		opts->heat = x->heat;
		opts->heat_name = x->heat_name;
		opts->heat_sum = query_draw_executed(x->d);
	}
	spec->grouper = query_draw_grouper;
	spec->grouper_ctx = x->d;
	if (a->layer) {
		if (query_draw_layer(x->d, a->layer, a->expand, &x->layer, &err) < 0)
			return cli_report(&err);
		spec->ids = x->layer.ids;
		spec->n_ids = x->layer.n_ids;
		spec->groups = &x->layer.groups;
		spec->layer = x->layer.path[0] ? x->layer.path : "/";
		spec->expand = x->layer.expand_comps;
	}
	return 0;
}

/* The region into -o OUT (or stdout with -o -).  0, or the exit status. */
static int write_out(const dot_args *a, const char *fmt, const region *r, dot_opts *opts)
{
	hs_error err = {0};
	dot_fit fit;
	int rc;

	opts->terminal = a->cells;
	if (!strcmp(a->out, "-")) {
		Agraph_t *G = dot_build(r, opts, &err);
		rc = G ? dot_write_stream(G, stdout, fmt, &fit, &err) : -1;
		dot_close(G);
		if (rc == 0 && fflush(stdout) != 0)
			rc = hs_fail(&err, HS_EDATA, "cannot write to stdout: %s", strerror(errno));
	} else {
		rc = dot_export(r, opts, a->out, fmt, &fit, &err);
	}
	opts->terminal = 0;
	if (rc)
		return cli_report(&err);
	char fitted[600];
	if (dot_fit_text(&fit, a->out, fitted, sizeof fitted) > 0)
		fprintf(stderr, "hloscope dot: %s\n", fitted);
	return 0;
}

/* The --data files noted as inputs, never to be written over. */
static int note_inputs(const cli_strs *files)
{
	int rc = 0;

	for (int i = 0; i < files->n && !rc; i++)
		rc = cli_note_input(files->v[i]);
	return rc;
}

static void run_free(dot_run *x)
{
	if (x->g)
		compare_notes_free(x->notes, x->g->n_nodes);
	query_draw_layer_free(&x->layer);
	query_draw_free(x->d);
	query_session_free(x->s);
	graph_free(x->g);
	free(x->ids);
	free(x->hl);
	free(x->heat);
}

int cmd_dot(int argc, char **argv)
{
	dot_args a;
	region_spec spec;
	dot_opts opts;
	hs_error err = {0};
	region *r = NULL;
	const char *fmt = NULL;
	dot_run x;
	progress_state pstate = {0};
	hs_progress forced = {.fn = progress_line, .ctx = &pstate, .after = 0};
	int rc;

	memset(&x, 0, sizeof x);
	if ((rc = parse_args(argc, argv, &a)) != 0 || (rc = build_spec(&a, &spec, &x.ids)) != 0) {
		free(a.data.files.v);
		return rc < 0 ? 0 : rc;
	}
	dot_opts_init(&opts);
	if ((rc = output_opts(&a, &fmt, &opts)) != 0 ||
	    (a.highlight && (rc = parse_ids("--highlight", a.highlight, &x.hl, &x.n_hl)) != 0))
		goto out;
	/* an output the writer would refuse is refused before the layout */
	if (a.out && strcmp(a.out, "-") != 0 &&
	    ((rc = cli_note_input(a.file)) != 0 || (rc = note_inputs(&a.data.files)) != 0 ||
	     (rc = cli_check_output("dot", "-o", a.out)) != 0))
		goto out;
	if (a.progress)
		hs_progress_push(&forced);
	x.tm.start = hs_now_seconds();
	x.g = graph_open(a.file, &err);
	if (!x.g) {
		rc = cli_report(&err);
		goto out;
	}
	x.tm.open = hs_now_seconds();
	if ((rc = prepare(&a, &spec, &opts, &x)) != 0)
		goto out;
	r = region_select(x.g, &spec, &err);
	if (!r) {
		rc = cli_report(&err);
		goto out;
	}
	if (r->note[0])
		fprintf(stderr, "hloscope dot: %s\n", r->note);
	x.tm.region = hs_now_seconds();
	x.tm.r = r;
	if (a.out && (rc = write_out(&a, fmt, r, &opts)) != 0)
		goto out;
	if (a.out)
		x.tm.export = hs_now_seconds() - x.tm.region;
	rc = a.text ? dcli_print_text(r, &opts, &x.tm) : 0;
	if (a.timing && rc == 0)
		dcli_print_timing(&x.tm, hs_now_seconds());
out:
	if (a.progress)
		hs_progress_pop(&forced);
	region_free(r);
	run_free(&x);
	free(a.data.files.v);
	return rc;
}
