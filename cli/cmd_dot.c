/* hloscope dot FILE REGION [-o OUT] [-T dot|svg|png] [--heat FEATURE|cost]
 *              [--limit N] [--force] [--highlight IDS] [--compare A B] [--text]
 *              [--cells]
 *
 * Draws a region of an HLO graph with Graphviz (linked, no `dot` process):
 * to a DOT, SVG or PNG file (written to a temporary file and renamed), and
 * with --text as box-drawing text on stdout.  See `hloscope dot --help`. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/parse.h"
#include "base/plural.h"
#include "cli/commands.h"
#include "loader/graph.h"
#include "loader/hlo.h"
#include "model/compare.h"
#include "model/cost.h"
#include "query/query.h"
#include "render/render.h"

static const char help_text[] =
	"usage: hloscope dot FILE REGION [-o OUT] [options]\n"
	"\n"
	"Draws part of an HLO graph with Graphviz: edges go from operand to user,\n"
	"nodes are colored by opcode category as XLA's graph dumper does.  Edges are\n"
	"the HLO operands: where a node has several, each edge is labelled with the\n"
	"operand's index (\"0,1\" for multiply(x, x)).  A node that calls a\n"
	"computation is joined to it by a dotted call edge (from its root or box).\n"
	"On a bare .npz the edges are the dataset's, call edges included.\n"
	"\n"
	"REGION (exactly one; a node is its id or its name, dot.42):\n"
	"  --around ID          nodes near node ID\n"
	"    --radius K         steps to follow (default 1)\n"
	"    --direction D      operands, users or both (default both)\n"
	"    --max-users N      collapse the users of nodes with more than N users\n"
	"                       into one \"N more users\" box (default 16, 0 = never)\n"
	"    --max-operands N   likewise \"N more operands\" (default 16, 0 = never)\n"
	"                       The center keeps all of its own unless the region\n"
	"                       would be over --limit, or the option is given: then\n"
	"                       it keeps its first N (in HLO order) and one box\n"
	"  --path A B           every path between nodes A and B\n"
	"    --max-nodes N      keep at most N nodes, shortest paths first (also\n"
	"                       within --max-work)\n"
	"  --computation NAME   the HLO computation NAME (fused_computation.3, entry;\n"
	"                       computation.K on a bare .npz), its callees as boxes\n"
	"  --computation K      a plain number K: node_splits segment K, as --split K\n"
	"                       (kept for scripts written before names)\n"
	"  --split K            node_splits segment K (0 ..; a layout graph's splits)\n"
	"  --configurable       configurable nodes of a layout graph and their neighbours\n"
	"  --nodes IDS          these nodes (\"1,5,9-12\") and the edges among them\n"
	"\n"
	"A called computation (fusion body, while body or condition, reducer, ...)\n"
	"that the region reaches is drawn as one box with its name, role and size;\n"
	"nodes are grouped in one cluster per HLO computation.\n"
	"  --expand NAMES       draw these computations (comma-separated) whole,\n"
	"                       every node of the body, when the region reaches or\n"
	"                       calls them\n"
	"  --expand all         collapse nothing (the nodes the region reached)\n"
	"\n"
	"Output:\n"
	"  -o OUT               .dot, .svg or .png file (\"-\" for stdout, with -T); a PNG\n"
	"                       keeps every side within 16,000 px: one over it (or a strip\n"
	"                       4 times longer than wide) is drawn left to right, then\n"
	"                       scaled down, as stderr says; SVG keeps the full size\n"
	"  -T FMT               dot, svg or png (overrides OUT's extension)\n"
	"  --text               print the terminal drawing to stdout; one wider than\n"
	"                       COLUMNS (or the terminal) is printed in strips of that\n"
	"                       width, left to right, as its first line says\n"
	"  --cells              DOT output sized in terminal cells, as --text lays it out\n"
	"  --heat FEATURE|cost  fill nodes by a node feature (name or index) or by the\n"
	"                       analytic cost model's seconds, with a legend\n"
	"  --heat-scale S       linear, log or auto (default)\n"
	"  --highlight IDS      draw these nodes with a thick blue border\n"
	"  --compare A B        highlight the nodes whose values differ between configs\n"
	"                       A and B (index, best, worst or default; model/compare.h),\n"
	"                       each with its layouts A -> B, and a legend\n"
	"  --limit N            refuse regions over N nodes (default 500)\n"
	"  --max-work N         refuse regions whose layout would take Graphviz long:\n"
	"                       nodes + edges + the ranks long edges cross, over N\n"
	"                       (default 20,000, about 10 s); --time prints it\n"
	"  --force              lay out any size\n"
	"  --time               print where the time went, and the region's size, to stderr\n";

typedef struct dot_args {
	const char *file, *out, *fmt, *heat, *heat_scale;
	const char *around, *radius, *direction, *max_users, *max_operands, *expand, *path_a,
		*path_b, *max_nodes,
		*computation, *split, *nodes, *highlight, *limit, *max_work, *compare_a, *compare_b;
	int configurable, force, text, cells, timing, n_kinds;
} dot_args;

/* One item of an id list, "N" or "N-M", the len bytes at p; 0 or -1. */
static int parse_id_range(const char *p, size_t len, int64_t *a, int64_t *b)
{
	const char *dash = len > 1 ? memchr(p + 1, '-', len - 1) : NULL;

	if (!dash) {
		if (hs_parse_i64n(p, len, a) < 0)
			return -1;
		*b = *a;
	} else if (hs_parse_i64n(p, (size_t)(dash - p), a) < 0 ||
		   hs_parse_i64n(dash + 1, len - (size_t)(dash - p) - 1, b) < 0) {
		return -1;
	}
	return *a < 0 || *b < *a || *b - *a > 100000000 ? -1 : 0;
}

/* Parses "1,5,9-12" (ids and ranges, one comma between items, none empty)
 * into a new array.  0, or the exit status after printing what is wrong. */
static int parse_ids(const char *opt, const char *s, int64_t **ids, size_t *n)
{
	size_t cap = 16;
	const char *p = s;

	*n = 0;
	*ids = malloc(cap * sizeof **ids);
	if (!*ids)
		return cli_oom("reading %s", opt);
	for (int item = 1;; item++) {
		size_t len = strcspn(p, ",");
		int64_t a, b;

		if (parse_id_range(p, len, &a, &b) < 0) {
			free(*ids);
			*ids = NULL;
			if (!len)
				return cli_usage_error("dot", "%s needs node ids like 1,5,9-12, not '%s': item %d is "
						       "empty", opt, s, item);
			return cli_usage_error("dot", "%s needs node ids like 1,5,9-12, not '%s': item %d, '%.*s'",
					       opt, s, item, (int)len, p);
		}
		for (int64_t v = a; v <= b; v++) {
			if (*n == cap) {
				int64_t *m = realloc(*ids, 2 * cap * sizeof **ids);
				if (!m) {
					free(*ids);
					*ids = NULL;
					return cli_oom("reading %s", opt);
				}
				*ids = m;
				cap *= 2;
			}
			(*ids)[(*n)++] = v;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int need(int argc, char **argv, int i, int count)
{
	if (i + count >= argc)
		return cli_usage_error("dot", "%s needs %s", argv[i],
				       count == 1 ? "a value" : "two values");
	return 0;
}

static int parse_args(int argc, char **argv, dot_args *a)
{
	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char **slot = NULL;

		if (!strcmp(o, "--around")) {
			slot = &a->around;
			a->n_kinds++;
		} else if (!strcmp(o, "--radius")) {
			slot = &a->radius;
		} else if (!strcmp(o, "--direction")) {
			slot = &a->direction;
		} else if (!strcmp(o, "--max-users")) {
			slot = &a->max_users;
		} else if (!strcmp(o, "--max-operands")) {
			slot = &a->max_operands;
		} else if (!strcmp(o, "--expand")) {
			slot = &a->expand;
		} else if (!strcmp(o, "--max-nodes")) {
			slot = &a->max_nodes;
		} else if (!strcmp(o, "--computation")) {
			slot = &a->computation;
			a->n_kinds++;
		} else if (!strcmp(o, "--split")) {
			slot = &a->split;
			a->n_kinds++;
		} else if (!strcmp(o, "--nodes")) {
			slot = &a->nodes;
			a->n_kinds++;
		} else if (!strcmp(o, "--highlight")) {
			slot = &a->highlight;
		} else if (!strcmp(o, "--limit")) {
			slot = &a->limit;
		} else if (!strcmp(o, "--max-work")) {
			slot = &a->max_work;
		} else if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
			slot = &a->out;
		} else if (!strcmp(o, "-T") || !strcmp(o, "--format")) {
			slot = &a->fmt;
		} else if (!strcmp(o, "--heat")) {
			slot = &a->heat;
		} else if (!strcmp(o, "--heat-scale")) {
			slot = &a->heat_scale;
		} else if (!strcmp(o, "--path")) {
			if (need(argc, argv, i, 2))
				return 1;
			a->path_a = argv[i + 1];
			a->path_b = argv[i + 2];
			a->n_kinds++;
			i += 2;
			continue;
		} else if (!strcmp(o, "--compare")) {
			if (need(argc, argv, i, 2))
				return 1;
			a->compare_a = argv[i + 1];
			a->compare_b = argv[i + 2];
			i += 2;
			continue;
		} else if (!strcmp(o, "--configurable")) {
			a->configurable = 1;
			a->n_kinds++;
			continue;
		} else if (!strcmp(o, "--force")) {
			a->force = 1;
			continue;
		} else if (!strcmp(o, "--text")) {
			a->text = 1;
			continue;
		} else if (!strcmp(o, "--cells")) {
			a->cells = 1;
			continue;
		} else if (!strcmp(o, "--time")) {
			a->timing = 1;
			continue;
		} else if (o[0] == '-' && o[1]) {
			return cli_usage_error("dot", "unknown option '%s' (see hloscope dot --help)", o);
		} else if (!a->file) {
			a->file = o;
			continue;
		} else {
			return cli_usage_error("dot", "unexpected argument '%s'", o);
		}
		if (need(argc, argv, i, 1))
			return 1;
		*slot = argv[++i];
	}
	if (!a->file)
		return cli_usage_error("dot", "needs a FILE");
	if (a->n_kinds == 0)
		return cli_usage_error("dot", "needs a region: --around ID, --path A B, "
				       "--computation NAME, --split K, --configurable or --nodes IDS");
	if (a->n_kinds > 1)
		return cli_usage_error("dot", "give one region only (--around, --path, "
				       "--computation, --split, --configurable or --nodes)");
	if ((a->radius || a->direction || a->max_users || a->max_operands) && !a->around)
		return cli_usage_error("dot", "--radius, --direction, --max-users and --max-operands "
				       "go with --around");
	if (a->max_nodes && !a->path_a)
		return cli_usage_error("dot", "--max-nodes goes with --path");
	if (!a->out && !a->text)
		return cli_usage_error("dot", "needs -o OUT or --text");
	return 0;
}

static int count_opt(const char *opt, const char *s, int64_t *out)
{
	if (hs_parse_i64(s, out))
		return cli_usage_error("dot", "%s needs a number, not '%s'", opt, s);
	if (*out < 0)
		return cli_usage_error("dot", "%s must be 0 or more, not %s", opt, s);
	return 0;
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
	*hcomp = region_find_hcomp(g, text);
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
};

static int build_spec(const dot_args *a, region_spec *s, int64_t **ids)
{
	region_spec_init(s);
	s->words = &dot_words;
	*ids = NULL;
	s->force = a->force;
	s->expand = a->expand;
	if (a->limit) {
		if (count_opt("--limit", a->limit, &s->limit))
			return 1;
		if (s->limit == 0)
			return cli_usage_error("dot", "--limit must be 1 or more (or use --force)");
	}
	if (a->max_work) {
		if (count_opt("--max-work", a->max_work, &s->max_work))
			return 1;
		if (s->max_work == 0)
			return cli_usage_error("dot", "--max-work must be 1 or more (or use --force)");
	}
	if (a->around) {
		s->kind = REGION_AROUND;
		if (node_opt("--around", a->around, &s->center))
			return 1;
		if (a->radius) {
			if (hs_parse_i64(a->radius, &s->radius))
				return cli_usage_error("dot", "--radius needs a number, not '%s'",
						       a->radius);
			if (s->radius < 0)
				return cli_usage_error("dot", "--radius must be 0 or more, not %s",
						       a->radius);
		}
		if (a->direction) {
			int d = region_dir_parse(a->direction);
			if (d < 0)
				return cli_usage_error("dot", "--direction must be operands, users "
						       "or both, not '%s'", a->direction);
			s->dir = (region_dir)d;
		}
		if (a->max_users && count_opt("--max-users", a->max_users, &s->user_threshold))
			return 1;
		if (a->max_operands &&
		    count_opt("--max-operands", a->max_operands, &s->operand_threshold))
			return 1;
		/* asked for: the center's crowd is collapsed too */
		s->collapse_center = (a->max_users ? REGION_USERS : 0) |
				     (a->max_operands ? REGION_OPERANDS : 0);
	} else if (a->path_a) {
		s->kind = REGION_PATH;
		if (node_opt("--path", a->path_a, &s->from) || node_opt("--path", a->path_b, &s->to))
			return 1;
		if (a->max_nodes) {
			if (count_opt("--max-nodes", a->max_nodes, &s->max_nodes))
				return 1;
			if (s->max_nodes == 0)
				return cli_usage_error("dot", "--max-nodes must be 1 or more");
		}
	} else if (a->split) {
		s->kind = REGION_COMPUTATION;
		if (count_opt("--split", a->split, &s->comp))
			return 1;
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
	} else {
		s->kind = REGION_NODES;
		int st = parse_ids("--nodes", a->nodes, ids, &s->n_ids);
		if (st)
			return st;
		s->ids = *ids;
	}
	return 0;
}

/* An unknown --heat name: the closest feature name, and the command that
 * lists them all.  Returns the exit status (1). */
static int heat_unknown(const hs_graph *g, const char *what)
{
	const char **names = malloc(((size_t)g->feat_width + 1) * sizeof *names);
	const char *sug = NULL;

	if (names) {
		for (int i = 0; i < g->feat_width; i++)
			names[i] = hlo_node_feature_name(i, g->feat_width);
		names[g->feat_width] = "cost";
		sug = query_suggest(what, names, (size_t)g->feat_width + 1);
	}
	char mean[160] = "";
	if (sug)
		snprintf(mean, sizeof mean, " (did you mean '%s'?)", sug);
	free(names);
	return cli_usage_error("dot", "--heat: no node feature named '%s'%s: give a feature "
			       "name, an index 0..%d or cost (`hloscope query %s fields` lists the "
			       "names)", what, mean, g->feat_width - 1, g->path);
}

/* Per-node heat values; NULL with a message on failure. */
static double *heat_values(const hs_graph *g, const char *what, char *name, size_t cap,
			   int *status)
{
	double *v = malloc((size_t)g->n_nodes * sizeof *v);
	int64_t idx;

	*status = 0;
	if (!v) {
		*status = cli_oom("computing --heat %s", what);
		return NULL;
	}
	if (!strcmp(what, "cost")) {
		cost_estimate *c = malloc((size_t)g->n_nodes * sizeof *c);
		if (!c || cost_analytic(g, c) < 0) {
			free(c);
			free(v);
			*status = cli_oom("computing --heat %s", what);
			return NULL;
		}
		for (int64_t i = 0; i < g->n_nodes; i++)
			v[i] = c[i].seconds;
		free(c);
		snprintf(name, cap, "cost (s)");
		return v;
	}
	if (hs_parse_i64(what, &idx) == 0) {
		if (idx < 0 || idx >= g->feat_width) {
			free(v);
			*status = cli_usage_error("dot", "--heat: feature index %s is out of range "
						  "(0..%d)", what, g->feat_width - 1);
			return NULL;
		}
	} else {
		idx = hlo_node_feature_index_w(what, g->feat_width);
		if (idx < 0) {
			free(v);
			*status = heat_unknown(g, what);
			return NULL;
		}
	}
	for (int64_t i = 0; i < g->n_nodes; i++)
		v[i] = graph_feat(g, i)[idx];
	snprintf(name, cap, "%s", hlo_node_feature_name((int)idx, g->feat_width));
	return v;
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
	compare_result *r = compare_run(g, NULL, a->compare_a, a->compare_b, &o, &err);
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
			a->compare_a, a->compare_b);
	}
	free(ch);
	compare_free(r);
	return 0;
}

typedef struct timing {
	double start, open, region, export, layout, graphviz, draw;
	const region *r;
} timing;

#define TEXT_BAND 48 /* rows drawn at a time */
#define TEXT_MIN_WIDTH 20

/* The columns the drawing may take: COLUMNS when it is a number, else the
 * terminal's width when stdout is one, else 0 (no limit: a file or a pipe
 * gets the whole drawing). */
static int text_width(void)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	int64_t v;

	if (c && *c && hs_parse_i64(c, &v) == 0 && v > 0)
		return v < TEXT_MIN_WIDTH ? TEXT_MIN_WIDTH : v > 100000 ? 100000 : (int)v;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col < TEXT_MIN_WIDTH ? TEXT_MIN_WIDTH : ws.ws_col;
	return 0;
}

/* Columns x0 .. x0 + cw - 1 of the drawing, all its rows, in bands of
 * rows (a big drawing never needs all its cells at once; edges are routed
 * once, for the whole drawing, so bands join exactly).  0, 2 on a write
 * error, 3 out of memory. */
static int print_columns(const hs_layout *L, const lay_routes *R, int x0, int cw, int h)
{
	int band = h < TEXT_BAND ? h : TEXT_BAND;
	canvas *cv = canvas_new(cw, band);

	for (int y0 = 0; cv && y0 < h; y0 += band) {
		if (h - y0 < cv->height) {
			canvas_free(cv);
			cv = canvas_new(cw, h - y0);
			if (!cv)
				break;
		}
		canvas_draw_routed(cv, L, R, x0, y0, -1);
		if (canvas_write(cv, stdout) != 0) {
			canvas_free(cv);
			fprintf(stderr, "hloscope dot: cannot write the drawing to stdout\n");
			return 2;
		}
	}
	if (!cv)
		return cli_oom("drawing %d x %d cells", cw, h);
	canvas_free(cv);
	return 0;
}

/* The drawing, whole or, when it is wider than the terminal (text_width),
 * in strips of the terminal's width, left to right, each under a rule
 * that says which columns it holds. */
static int print_drawing(const hs_layout *L, const lay_routes *R)
{
	int w, h, tw = text_width(), rc = 0;

	canvas_extent(L, &w, &h);
	if (!tw || w <= tw)
		return print_columns(L, R, 0, w, h);
	int strips = (w + tw - 1) / tw;
	printf("the drawing is %d columns wide, wider than the terminal's %d%s: printed in %d "
	       "strips of %d columns, left to right (-o FILE.svg draws it whole)\n", w, tw,
	       getenv("COLUMNS") ? " (COLUMNS)" : "", strips, tw);
	for (int x0 = 0; x0 < w && rc == 0; x0 += tw) {
		int cw = w - x0 < tw ? w - x0 : tw;
		char rule[64];
		int n = snprintf(rule, sizeof rule, "── columns %d-%d of %d ", x0 + 1, x0 + cw, w);
		printf("%s", rule);
		for (int k = n - 4; k < tw; k++) /* "──" is 6 bytes, 2 columns */
			printf("─");
		printf("\n");
		rc = print_columns(L, R, x0, cw, h);
	}
	return rc;
}

static int print_text(const region *r, const dot_opts *o, timing *tm)
{
	hs_error err = {0};
	hs_layout *L = layout_region(r, o, &err);
	int rc;

	if (!L)
		return cli_report(&err);
	tm->layout = L->seconds_total;
	tm->graphviz = L->seconds_graphviz;
	double t0 = hs_now_seconds();
	printf("%s: %" PRId64 " node%s, %" PRId64 " edge%s", r->title, r->n_nodes, hs_s(r->n_nodes),
	       r->n_edges, hs_s(r->n_edges));
	if (r->n_calls)
		printf(", %" PRId64 " call edge%s", r->n_calls, hs_s(r->n_calls));
	if (r->n_more)
		printf(", %" PRId64 " collapsed user group%s", r->n_more, hs_s(r->n_more));
	if (r->n_fanin)
		printf(", %" PRId64 " collapsed operand group%s", r->n_fanin, hs_s(r->n_fanin));
	if (r->n_boxes)
		printf(", %" PRId64 " collapsed computation%s (%" PRId64 " node%s, %" PRId64 " edge%s)",
		       r->n_boxes, hs_s(r->n_boxes), r->collapsed, hs_s(r->collapsed), r->n_links,
		       hs_s(r->n_links));
	printf("\n");
	if (L->heat && L->scale.any) {
		printf("heat %s%s: ", o->heat_name, L->scale.log ? " (log scale)" : "");
		printf("▁ %.3g  ▄ %.3g  █ %.3g\n", dot_heat_edge(&L->scale, 0),
		       dot_heat_edge(&L->scale, DOT_HEAT_BINS / 2),
		       dot_heat_edge(&L->scale, DOT_HEAT_BINS));
	}
	lay_routes *R = route_layout(L);
	rc = R || !L->n_edges ? print_drawing(L, R) : cli_oom("routing %d edges", L->n_edges);
	route_free(R);
	layout_free(L);
	tm->draw = hs_now_seconds() - t0;
	if (rc)
		return rc;
	return fflush(stdout) == 0 ? 0 : 2;
}

static void print_timing(const timing *t, double end)
{
	fprintf(stderr, "time: load %.1f ms, region %.1f ms", 1e3 * (t->open - t->start),
		1e3 * (t->region - t->open));
	if (t->export > 0)
		fprintf(stderr, ", export %.1f ms", 1e3 * t->export);
	if (t->layout > 0)
		fprintf(stderr, ", layout %.1f ms (Graphviz dot %.1f ms), drawing and printing "
			"%.1f ms", 1e3 * t->layout, 1e3 * t->graphviz, 1e3 * t->draw);
	fprintf(stderr, ", total %.1f ms\n", 1e3 * (end - t->start));
	if (t->r) {
		char what[240];
		region_work_text(&t->r->work, what, sizeof what);
		fprintf(stderr, "region: %s\n", what);
	}
}

int cmd_dot(int argc, char **argv)
{
	dot_args a;
	region_spec spec;
	dot_opts opts;
	hs_error err = {0};
	hs_graph *g = NULL;
	region *r = NULL;
	int64_t *ids = NULL, *hl = NULL;
	size_t n_hl = 0;
	double *heat = NULL;
	char heat_name[128];
	const char *fmt = NULL;
	int rc;
	timing tm = {0};
	dot_fit fit;
	char **notes = NULL, legend[1024] = "";

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(help_text, stdout);
			return 0;
		}
	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc;
	if ((rc = build_spec(&a, &spec, &ids)) != 0)
		return rc;
	dot_opts_init(&opts);
	if (a.out) {
		fmt = a.fmt ? a.fmt : dot_format_for_path(a.out);
		if (!fmt) {
			rc = cli_usage_error("dot", "cannot tell the format of '%s' from its name; "
					     "use -T dot, svg or png", a.out);
			goto out;
		}
		if (!dot_format_known(fmt)) {
			rc = cli_usage_error("dot", "unknown format '%s' (dot, svg or png)", fmt);
			goto out;
		}
		if (a.cells && strcmp(fmt, "dot") != 0) {
			rc = cli_usage_error("dot", "--cells only applies to DOT output");
			goto out;
		}
	} else if (a.fmt || a.cells) {
		rc = cli_usage_error("dot", "-T and --cells need -o OUT");
		goto out;
	}
	if (a.heat_scale) {
		if (!strcmp(a.heat_scale, "linear"))
			opts.heat_log = 0;
		else if (!strcmp(a.heat_scale, "log"))
			opts.heat_log = 1;
		else if (!strcmp(a.heat_scale, "auto"))
			opts.heat_log = -1;
		else {
			rc = cli_usage_error("dot", "--heat-scale must be linear, log or auto");
			goto out;
		}
	}
	if (a.highlight && (rc = parse_ids("--highlight", a.highlight, &hl, &n_hl)) != 0)
		goto out;

	tm.start = hs_now_seconds();
	g = graph_open(a.file, &err);
	if (!g) {
		rc = cli_report(&err);
		goto out;
	}
	tm.open = hs_now_seconds();
	if ((rc = resolve_node(g, "--around", a.around ? a.around : "", &spec.center)) != 0 ||
	    (rc = resolve_node(g, "--path", a.path_a ? a.path_a : "", &spec.from)) != 0 ||
	    (rc = resolve_node(g, "--path", a.path_b ? a.path_b : "", &spec.to)) != 0 ||
	    (rc = resolve_computation(g, a.computation ? a.computation : "", &spec.hcomp)) != 0)
		goto out;
	for (size_t i = 0; i < n_hl; i++)
		if (hl[i] >= g->n_nodes) {
			rc = cli_usage_error("dot", "--highlight: node %" PRId64 " is out of range: "
					     "%s has %" PRId64 " node%s (0..%" PRId64 ")", hl[i],
					     g->name, g->n_nodes, hs_s(g->n_nodes), g->n_nodes - 1);

			goto out;
		}
	if (a.compare_a && (rc = compare_picture(g, &a, &hl, &n_hl, &notes, legend, sizeof legend)))
		goto out;
	opts.notes = (const char *const *)notes;
	opts.highlight_legend = legend[0] ? legend : NULL;
	opts.highlight = hl;
	opts.n_highlight = n_hl;
	if (a.heat) {
		heat = heat_values(g, a.heat, heat_name, sizeof heat_name, &rc);
		if (!heat)
			goto out;
		opts.heat = heat;
		opts.heat_name = heat_name;
	}
	r = region_select(g, &spec, &err);
	if (!r) {
		rc = cli_report(&err);
		goto out;
	}
	tm.region = hs_now_seconds();
	tm.r = r;
	if (a.out) {
		opts.terminal = a.cells;
		if (!strcmp(a.out, "-")) {
			Agraph_t *G = dot_build(r, &opts, &err);
			rc = G ? dot_write_stream(G, stdout, fmt, &fit, &err) : -1;
			if (G)
				agclose(G);
			if (rc == 0 && fflush(stdout) != 0)
				rc = hs_fail(&err, HS_EUSAGE, "cannot write to stdout");
		} else {
			rc = dot_export(r, &opts, a.out, fmt, &fit, &err);
		}
		if (rc) {
			rc = cli_report(&err);
			goto out;
		}
		char fitted[600];
		if (dot_fit_text(&fit, a.out, fitted, sizeof fitted) > 0)
			fprintf(stderr, "hloscope dot: %s\n", fitted);
		opts.terminal = 0;
		tm.export = hs_now_seconds() - tm.region;
	}
	rc = a.text ? print_text(r, &opts, &tm) : 0;
	if (a.timing && rc == 0)
		print_timing(&tm, hs_now_seconds());
out:
	region_free(r);
	if (g)
		compare_notes_free(notes, g->n_nodes);
	graph_free(g);
	free(ids);
	free(hl);
	free(heat);
	return rc;
}
