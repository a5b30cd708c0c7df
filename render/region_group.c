/* region_group.c - groups of nodes drawn as one box each, and regions over
 * their limit collapsed into groups (see region.h).
 *
 * A region over its limit is selected again whatever its size, and its
 * nodes are grouped: by layer when the caller's grouper finds a grouping
 * that draws within the limit (it knows op_name's namespaces, which this
 * layer cannot read), else by computation; the region's focus nodes stay
 * themselves.  r->note says what was done, for the front end's stderr and
 * the drawing's legend.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/units.h"
#include "render/region.h"
#include "render/region_impl.h"

int region_groups_init(region_groups *gr, const hs_graph *g, int64_t n, hs_error *err)
{
	memset(gr, 0, sizeof *gr);
	gr->of = hs_arena_array(&gr->arena, (size_t)g->n_nodes + 1, sizeof *gr->of);
	gr->label = hs_arena_array(&gr->arena, (size_t)n + 1, sizeof *gr->label);
	gr->detail = hs_arena_array(&gr->arena, (size_t)n + 1, sizeof *gr->detail);
	gr->tip = hs_arena_array(&gr->arena, (size_t)n + 1, sizeof *gr->tip);
	if (!gr->of || !gr->label || !gr->detail || !gr->tip) {
		region_groups_free(gr);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory grouping %" PRId64 " nodes", g->name,
			       g->n_nodes);
	}
	for (int64_t v = 0; v < g->n_nodes; v++)
		gr->of[v] = -1;
	gr->n = n;
	return 0;
}

char *region_groups_strdup(region_groups *gr, const char *text)
{
	return hs_arena_strdup(&gr->arena, text ? text : "");
}

void region_groups_free(region_groups *gr)
{
	if (!gr)
		return;
	hs_arena_free(&gr->arena);
	memset(gr, 0, sizeof *gr);
}

int region_groups_by_computation(const hs_graph *g, const int64_t *nodes, int64_t n,
				 region_groups *out, hs_error *err)
{
	int64_t nc = g->hcomps && g->hcomp_of ? g->n_hcomps : 0, k = 0;
	int64_t *count = calloc((size_t)nc + 1, sizeof *count), *index = malloc(((size_t)nc + 1) * sizeof *index);
	char line[200];

	memset(out, 0, sizeof *out);
	if (!count || !index) {
		free(count);
		free(index);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory grouping by computation", g->name);
	}
	int64_t total = nodes ? n : g->n_nodes;
	for (int64_t i = 0; nc && i < total; i++)
		count[g->hcomp_of[nodes ? nodes[i] : i]]++;
	for (int64_t c = 0; c < nc; c++)
		index[c] = count[c] ? k++ : -1;
	int rc = region_groups_init(out, g, k, err);
	for (int64_t c = 0; rc == 0 && c < nc; c++) {
		if (index[c] < 0)
			continue;
		const hs_hcomp *h = &g->hcomps[c];
		char cnt[32], all[32];
		hs_num_thousands(cnt, sizeof cnt, count[c]);
		hs_num_thousands(all, sizeof all, h->count);
		const char *name = graph_hcomp_name(g, c);
		out->label[index[c]] = region_groups_strdup(out, name);
		snprintf(line, sizeof line, "%s, %s node%s", graph_role_name(h->role), cnt, hs_s(count[c]));
		out->detail[index[c]] = region_groups_strdup(out, line);
		snprintf(line, sizeof line, "%s (%s computation): %s of its %s nodes", name,
			 graph_role_name(h->role), cnt, all);
		out->tip[index[c]] = region_groups_strdup(out, line);
		if (!out->label[index[c]] || !out->detail[index[c]] || !out->tip[index[c]]) {
			region_groups_free(out);
			rc = hs_fail(err, HS_ENOMEM, "%s: out of memory grouping by computation", g->name);
		}
	}
	for (int64_t i = 0; rc == 0 && nc && i < total; i++) {
		int64_t v = nodes ? nodes[i] : i;
		out->of[v] = (int32_t)index[g->hcomp_of[v]];
	}
	if (rc == 0)
		snprintf(out->what, sizeof out->what, "computation");
	free(count);
	free(index);
	return rc;
}

/* How a grouped region is refused: the region as it was asked for (why),
 * or its size, and why no grouping fits. */
static void refuse(const region *r, const region_spec *s, int64_t limit, const char *why,
		   const char *because, hs_error *err)
{
	const region_words *x = region_words_of(s);
	region_ways w = {0};
	char ways[400], n[32], l[32];

	hs_num_thousands(n, sizeof n, r->n_nodes);
	hs_num_thousands(l, sizeof l, limit);
	if (s->kind == REGION_AROUND)
		region_way(&w, x->radius ? "a smaller " : NULL, "%s", x->radius);
	region_way(&w, x->force, "%s", "");
	region_ways_text(&w, "; use ", ways, sizeof ways);
	if (why && *why)
		hs_fail(err, HS_EUSAGE, "%s (%s)", why, because);
	else
		hs_fail(err, HS_EUSAGE, "%s: %s nodes, more than the limit of %s boxes, and %s%s", r->title,
			n, l, because, ways);
}

/* The groups of r's nodes: the grouper's (by layer) unless computations
 * are asked for, else by computation.  0 with *gr filled (n = 0 when none
 * fits), -1 with err set. */
static int make_groups(region *r, const region_spec *s, int64_t limit, region_groups *gr,
		       hs_error *err)
{
	const hs_graph *g = r->g;

	memset(gr, 0, sizeof *gr);
	if (s->collapse != REGION_COLLAPSE_COMPUTATION && s->grouper &&
	    s->grouper(s->grouper_ctx, g, r->nodes, r->n_nodes, limit,
		       s->collapse == REGION_COLLAPSE_LAYER ? REGION_COLLAPSE_LAYER : REGION_COLLAPSE_AUTO, gr,
		       err) < 0)
		return -1;
	if (gr->n > 0 || s->collapse == REGION_COLLAPSE_LAYER)
		return 0;
	region_groups_free(gr);
	return region_groups_by_computation(g, r->nodes, r->n_nodes, gr, err);
}

/* r->note: why and how the region was grouped. */
static void say_grouped(region *r, const region_spec *s, int64_t over, int64_t limit,
			int64_t nodes)
{
	const region_groups *gr = r->groups;
	char n[32], l[32], b[32], o[32];
	int64_t boxes = r->n_nodes + r->n_boxes;

	hs_num_thousands(n, sizeof n, nodes);
	hs_num_thousands(l, sizeof l, limit);
	hs_num_thousands(b, sizeof b, boxes);
	hs_num_thousands(o, sizeof o, over);
	char more[200] = "";
	if (gr->note[0])
		snprintf(more, sizeof more, " (%s)", gr->note);
	if (over > 0)
		region_note_add(r, "the region draws %s boxes, more than the limit of %s: collapsed by %s into "
				"%s box%s for its %s nodes%s", o, l, gr->what, b, boxes == 1 ? "" : "es", n,
				more);
	else
		region_note_add(r, "collapsed by %s into %s box%s for its %s nodes%s", gr->what, b,
				boxes == 1 ? "" : "es", n, more);
	(void)s;
}

region *region_select_grouped(const hs_graph *g, const region_spec *s, int64_t over,
			      const char *why, hs_error *err)
{
	region_spec f = *s;
	int64_t limit = s->limit > 0 ? s->limit : REGION_FILE_LIMIT;

	f.force = 1;
	f.limit = 0;
	f.groups = NULL;
	region *r = region_select_kind(g, &f, NULL, err);
	if (!r)
		return NULL;
	int64_t nodes = r->n_nodes;
	region_groups *gr = calloc(1, sizeof *gr);
	if (!gr) {
		hs_fail(err, HS_ENOMEM, "%s: out of memory grouping a region", g->name);
		region_free(r);
		return NULL;
	}
	r->own_groups = gr;
	if (make_groups(r, s, limit, gr, err) < 0) {
		region_free(r);
		return NULL;
	}
	if (gr->n == 0) {
		refuse(r, s, limit, why, g->knows & HM_KNOWS_ATTRS ? "its nodes have no op_name layers that group them "
		       "within it" : "a bare .npz has no layers or computations to group it by", err);
		region_free(r);
		return NULL;
	}
	if (r->focus >= 0)
		gr->of[r->focus] = -1;
	if (r->focus2 >= 0)
		gr->of[r->focus2] = -1;
	r->groups = gr;
	if (region_collapse(r, s, err) < 0) {
		region_free(r);
		return NULL;
	}
	if (r->n_nodes + r->n_boxes > limit) {
		char because[200], b[32];
		hs_num_thousands(b, sizeof b, r->n_nodes + r->n_boxes);
		snprintf(because, sizeof because, "collapsed by %s it would still draw %s boxes", gr->what, b);
		refuse(r, s, limit, why, because, err);
		region_free(r);
		return NULL;
	}
	say_grouped(r, s, over, limit, nodes);
	return r;
}
