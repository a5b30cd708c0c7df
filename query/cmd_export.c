/* cmd_export.c - the query command `export`: a region of the graph (around
 * a node, a path, a computation, the configurable nodes, the nodes that
 * match, or a layer of op_name) drawn through Graphviz into a DOT, SVG or
 * PNG file, optionally filled by a number (heat).  Regions come from
 * render/region.h, layers and heat from query/draw.h, files from
 * render/dot.h (written atomically).  As `hloscope dot`: at most `limit`
 * boxes (2,500), a larger region collapsed by layer or computation, long
 * edges cut into stubs.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "query/commands.h"
#include "query/draw_groups.h"
#include "render/dot.h"
#include "render/region.h"

/* Where a standalone "-o" starts in src[from, n) outside quotes, or n. */
static size_t find_output_option(const char *src, size_t from, size_t n)
{
	char quote = 0;

	for (size_t i = from; i < n; i++) {
		char c = src[i];
		if (quote) {
			if (c == '\\' && i + 1 < n)
				i++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '"' || c == '\'') {
			quote = c;
			continue;
		}
		if (c == '#')
			return n;
		if (c == '-' && i + 1 < n && src[i + 1] == 'o' &&
		    (i == from || isspace((unsigned char)src[i - 1])) &&
		    (i + 2 == n || isspace((unsigned char)src[i + 2])))
			return i;
	}
	return n;
}

/* What `export` was asked for. */
struct export_req {
	char fmt[8];        /* dot, svg or png, in lower case */
	region_spec spec;
	size_t region_pos;  /* where the region starts, for its errors */
	query_expr *where;  /* REGION_NODES: the condition */
	query_expr *heat;   /* NULL: no heat */
	char *path;         /* -o FILE (parser arena); NULL until given */
	size_t path_pos;
	char *layer;        /* REGION_LAYER: the namespace (parser arena) */
	size_t layer_pos;
};

static int parse_format(query_parser *p, struct export_req *q)
{
	const query_token *t = query_peek(p);

	if (t->kind != TK_WORD || !dot_format_known(t->str) || strlen(t->str) >= sizeof q->fmt)
		return query_fail_expected(p, "dot, svg or png");
	snprintf(q->fmt, sizeof q->fmt, "%s", t->str);
	for (char *c = q->fmt; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	query_advance(p);
	return 0;
}

/* The file name after "-o". */
static int parse_path(query_parser *p, struct export_req *q)
{
	q->path = query_raw_word(p, &q->path_pos);
	if (!q->path)
		return -1;
	if (!*q->path)
		return query_fail_at(p, q->path_pos, "expected a file name after -o at column %zu",
				     q->path_pos + 1);
	return 0;
}

/* "-o FILE" ends the command: take it first, so that an expression before
 * it (where ..., heat ...) does not read "-o" as a minus; then parse the
 * rest as if the line ended there. */
static int take_output(query_parser *p, struct export_req *q)
{
	size_t saved = p->pos;
	size_t opt = find_output_option(p->src, saved, p->n);

	if (opt == p->n)
		return 0;
	p->pos = opt + 2;
	p->have = 0;
	if (parse_path(p, q) < 0)
		return -1;
	if (query_peek(p)->kind != TK_END)
		return query_fail_expected(p, "end of line after -o FILE");
	p->n = opt;
	p->pos = saved;
	p->have = 0;
	return 0;
}

/* around ID [radius K] [up|down|both], after "around". */
static int parse_around(query_parser *p, region_spec *spec)
{
	long long v = query_parse_node(p);

	if (v < 0)
		return -1;
	spec->kind = REGION_AROUND;
	spec->center = v;
	for (;;) {
		if (query_accept_kw(p, "radius") || query_accept_kw(p, "depth")) {
			long long k = query_parse_count(p, "a radius");
			if (k < 0)
				return -1;
			spec->radius = k;
		} else if (query_accept_kw(p, "up")) {
			spec->dir = REGION_OPERANDS;
		} else if (query_accept_kw(p, "down")) {
			spec->dir = REGION_USERS;
		} else if (query_accept_kw(p, "both")) {
			spec->dir = REGION_BOTH;
		} else {
			return 0;
		}
	}
}

/* A node_splits segment: `split K`, or `computation K` as before names. */
static int parse_split(query_parser *p, region_spec *spec)
{
	hs_graph *g = p->s->g;
	size_t cpos = query_peek(p)->pos;
	long long c = query_parse_count(p, "a split index");

	if (c < 0)
		return -1;
	if (c >= g->n_comps)
		return query_fail_at(p, cpos, "split %lld at column %zu is out of range "
				     "(the graph has %lld, 0..%lld)", c, cpos + 1,
				     (long long)g->n_comps, (long long)g->n_comps - 1);
	spec->kind = REGION_COMPUTATION;
	spec->comp = c;
	return 0;
}

/* `computation NAME`: a real HLO computation, or the closest name. */
static int parse_hcomp(query_parser *p, region_spec *spec)
{
	hs_graph *g = p->s->g;
	size_t cpos;
	char sug[160];
	const char *name = query_raw_word(p, &cpos);

	if (!name)
		return -1;
	if (!*name)
		return query_fail_expected(p, "a computation name or a split number");
	spec->kind = REGION_COMPUTATION;
	spec->hcomp = graph_find_hcomp(g, name);
	if (spec->hcomp >= 0)
		return 0;
	if (query_suggest_computation(g, name, sug, sizeof sug))
		return query_fail_at(p, cpos, "no computation named '%s' at column %zu (did "
				     "you mean '%s'?)", name, cpos + 1, sug);
	return query_fail_at(p, cpos, "no computation named '%s' at column %zu (`count by "
			     "computation_name` lists them)", name, cpos + 1);
}

const char *query_suggest_computation(const hs_graph *g, const char *word, char *buf,
				      size_t cap)
{
	size_t n = (size_t)g->n_hcomps;
	char **names = calloc(n ? n : 1, sizeof *names);
	const char *best = NULL;
	size_t k = 0;

	if (!names)
		return NULL;
	for (; k < n; k++)
		if (!(names[k] = strdup(graph_hcomp_name(g, (int64_t)k))))
			goto done;
	best = query_suggest(word, (const char *const *)names, n);
	if (best) {
		snprintf(buf, cap, "%s", best);
		best = buf;
	}
done:
	while (k > 0)
		free(names[--k]);
	free(names);
	return best;
}

/* The ways out of a refused region, in export's own words (it has no
 * limit or thresholds to raise). */
static const region_words export_words = {
	.around = "around ID",
	.radius = "radius",
	.direction = "up or down",
	.computation = "computation",
	.limit = "limit",
	.force = "force",
	.collapse = "collapse layer",
};

static int parse_region(query_parser *p, struct export_req *q)
{
	region_spec *spec = &q->spec;

	region_spec_init(spec);
	spec->words = &export_words;
	spec->limit = REGION_FILE_LIMIT;
	spec->collapse = REGION_COLLAPSE_AUTO;
	spec->cut_long_edges = 1;
	q->region_pos = query_peek(p)->pos;
	if (query_accept_kw(p, "around"))
		return parse_around(p, spec);
	if (query_accept_kw(p, "path")) {
		spec->kind = REGION_PATH;
		long long a = query_parse_node(p);
		if (a < 0)
			return -1;
		long long b = query_parse_node(p);
		if (b < 0)
			return -1;
		spec->from = a;
		spec->to = b;
		return 0;
	}
	if (query_accept_kw(p, "split"))
		return parse_split(p, spec);
	if (query_accept_kw(p, "computation"))
		return query_peek(p)->kind == TK_NUM ? parse_split(p, spec) : parse_hcomp(p, spec);
	if (query_accept_kw(p, "configurable")) {
		spec->kind = REGION_CONFIGURABLE;
		return 0;
	}
	if (query_accept_kw(p, "layer")) {
		spec->kind = REGION_LAYER;
		q->layer = query_raw_word(p, &q->layer_pos);
		if (!q->layer)
			return -1;
		if (!*q->layer)
			return query_fail_expected(p, "a layer's path after layer (/ for the whole module)");
		return 0;
	}
	if (query_accept_kw(p, "where")) {
		spec->kind = REGION_NODES;
		q->where = query_parse_expr(p);
		if (!q->where || query_need_bool(p, q->where, "where") < 0)
			return -1;
		return 0;
	}
	return query_fail_expected(p, "a region: around, path, computation, split, "
				      "configurable, where or layer");
}

/* collapse auto|layer|computation|none. */
static int parse_collapse(query_parser *p, region_spec *spec)
{
	static const char *const names[] = {"none", "auto", "layer", "computation"};
	static const region_collapse_mode modes[] = {REGION_COLLAPSE_NONE, REGION_COLLAPSE_AUTO,
						     REGION_COLLAPSE_LAYER, REGION_COLLAPSE_COMPUTATION};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (query_accept_kw(p, names[i])) {
			spec->collapse = modes[i];
			return 0;
		}
	return query_fail_expected(p, "auto, layer, computation or none after collapse");
}

/* heat EXPR, expand NAMES, limit N, collapse MODE, force and -o FILE, up to
 * the end of the line. */
static int parse_options(query_parser *p, struct export_req *q)
{
	for (;;) {
		if (p->failed)
			return -1;
		if (query_accept_kw(p, "heat")) {
			q->heat = query_parse_expr(p);
			if (!q->heat || query_need_number(p, q->heat, "heat") < 0)
				return -1;
		} else if (query_accept_kw(p, "force")) {
			q->spec.force = 1;
		} else if (query_accept_kw(p, "limit")) {
			size_t lpos = query_peek(p)->pos;
			long long n = query_parse_count(p, "a number of boxes");
			if (n < 0)
				return -1;
			if (n == 0)
				return query_fail_at(p, lpos, "limit 0 at column %zu: a drawing holds 1 box or more",
						     lpos + 1);
			q->spec.limit = n;
		} else if (query_accept_kw(p, "collapse")) {
			if (parse_collapse(p, &q->spec) < 0)
				return -1;
		} else if (query_accept_kw(p, "expand")) {
			/* called computations drawn in full: NAME[,NAME...] or all */
			q->spec.expand = query_raw_word(p, NULL);
			if (!q->spec.expand || !*q->spec.expand)
				return q->spec.expand ? query_fail_expected(p, "computation names or all after expand")
						      : -1;
		} else if (query_peek(p)->kind == TK_MINUS) {
			size_t mpos = query_peek(p)->pos;
			query_advance(p);
			if (!query_accept_kw(p, "o"))
				return query_fail_at(p, mpos, "unknown option at column %zu (expected -o FILE)",
						     mpos + 1);
			if (parse_path(p, q) < 0)
				return -1;
		} else if (query_peek(p)->kind == TK_END) {
			return 0;
		} else {
			return query_fail_expected(p, "heat EXPR, expand NAMES, limit N, collapse MODE, force "
						      "or -o FILE");
		}
	}
}

/* The heat expression on every node (malloc'd), or NULL with the error set. */
static double *heat_values(query_parser *p, const query_expr *heat)
{
	hs_graph *g = p->s->g;
	double *v;

	if (query_prepare(p->s, heat, p->err) < 0) {
		query_data_fail(p, p->err);
		return NULL;
	}
	v = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *v);
	if (!v) {
		query_oom(p);
		return NULL;
	}
	for (int64_t i = 0; i < g->n_nodes; i++)
		v[i] = query_eval_num(p->s, heat, i);
	return v;
}

/* A layer region: its nodes and groups into q->spec (from ld).  0, or -1
 * with the error at the layer's column. */
static int layer_spec(query_parser *p, query_draw *d, struct export_req *q, query_layer_draw *ld)
{
	hs_error e;

	hs_error_clear(&e);
	if (query_draw_layer(d, q->layer, q->spec.expand, ld, &e) < 0) {
		if (e.status == HS_EUSAGE)
			return query_fail_at(p, q->layer_pos, "%s (layer at column %zu)", e.msg, q->layer_pos + 1);
		return query_data_fail(p, &e);
	}
	q->spec.ids = ld->ids;
	q->spec.n_ids = ld->n_ids;
	q->spec.groups = &ld->groups;
	q->spec.layer = ld->path[0] ? ld->path : "/";
	q->spec.expand = ld->expand_comps;
	return 0;
}

/* "wrote FILE (svg: TITLE, 12 nodes, 14 edges, ...)" and what was done to
 * fit the region. */
static char *wrote(const struct export_req *q, const region *r, const char *fitted)
{
	char calls[48] = "", boxes[96] = "", note[700] = "";
	int64_t groups = 0;

	for (int64_t k = 0; k < r->n_boxes; k++)
		groups += r->boxes[k].group >= 0;
	if (r->n_calls)
		snprintf(calls, sizeof calls, ", %lld call edge%s", (long long)r->n_calls, hs_s(r->n_calls));
	if (groups)
		snprintf(boxes, sizeof boxes, ", %lld %s box%s", (long long)groups, r->groups->what,
			 groups == 1 ? "" : "es");
	if (r->note[0])
		snprintf(note, sizeof note, "note: %s\n", r->note);
	return query_asprintf("wrote %s (%s: %s, %lld node%s, %lld edge%s%s%s)\n%s%s%s", q->path, q->fmt,
			      r->title, (long long)r->n_nodes, hs_s(r->n_nodes), (long long)r->n_edges,
			      hs_s(r->n_edges), calls, boxes, note, fitted, fitted[0] ? "\n" : "");
}

/* Selects the region, draws it into the file and says what was written. */
static int draw(query_parser *p, query_result *out, struct export_req *q)
{
	double *heatv = NULL;
	region *r = NULL;
	dot_opts o;
	hs_error e;
	int rc = -1;
	query_layer_draw ld;
	query_draw *d = query_draw_new(p->s, p->err);

	memset(&ld, 0, sizeof ld);
	if (!d)
		return query_data_fail(p, p->err);
	hs_error_clear(&e);
	q->spec.grouper = query_draw_grouper;
	q->spec.grouper_ctx = d;
	if (q->layer && layer_spec(p, d, q, &ld) < 0)
		goto done;
	r = region_select(p->s->g, &q->spec, &e);
	if (!r) {
		if (e.status == HS_EUSAGE)
			query_fail_at(p, q->region_pos, "%s (region at column %zu)", e.msg, q->region_pos + 1);
		else
			query_data_fail(p, &e);
		goto done;
	}
	dot_opts_init(&o);
	if (q->heat) {
		heatv = heat_values(p, q->heat);
		if (!heatv)
			goto done;
		o.heat = heatv;
		o.heat_name = query_expr_source(p, q->heat);
		o.heat_sum = query_draw_executed(d);
	}
	dot_fit fit;
	char fitted[512];
	if (dot_export(r, &o, q->path, q->fmt, &fit, &e) < 0) {
		query_data_fail(p, &e);
		goto done;
	}
	if (dot_fit_text(&fit, NULL, fitted, sizeof fitted) <= 0)
		fitted[0] = '\0';
	out->kind = QUERY_BLOCK;
	out->text = wrote(q, r, fitted);
	rc = out->text ? 0 : query_oom(p);
done:
	region_free(r);
	free(heatv);
	query_draw_layer_free(&ld);
	query_draw_free(d);
	return rc;
}

int query_cmd_export(query_parser *p, query_result *out)
{
	struct export_req q = {0};
	int64_t *ids = NULL, nids = 0;
	int rc;

	if (parse_format(p, &q) < 0 || take_output(p, &q) < 0 || parse_region(p, &q) < 0 ||
	    parse_options(p, &q) < 0)
		return -1;
	if (!q.path)
		return query_fail_at(p, p->n, "export needs -o FILE at column %zu", p->n + 1);
	if (q.where) {
		ids = query_filter_rows(p, q.where, p->s->g->n_nodes, &nids);
		if (!ids)
			return -1;
		if (nids == 0) {
			free(ids);
			return query_fail_at(p, q.where->pos, "no node matches the condition at column %zu",
					     q.where->pos + 1);
		}
		q.spec.ids = ids;
		q.spec.n_ids = (size_t)nids;
	}
	rc = draw(p, out, &q);
	free(ids);
	return rc;
}
