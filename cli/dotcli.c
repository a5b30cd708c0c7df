/* dotcli.c - `hloscope dot` beside its options: the terminal drawing,
 * --data and --heat (dotcli.h). */
#include "cli/dotcli.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/parse.h"
#include "base/units.h"
#include "base/plural.h"
#include "cli/cli.h"
#include "loader/hlo.h"

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

/* The boxes of the header line: collapsed computations, groups, stubs. */
static void print_boxes(const region *r)
{
	int64_t comps = 0, groups = 0;

	for (int64_t k = 0; k < r->n_boxes; k++)
		comps += r->boxes[k].group < 0;
	groups = r->n_boxes - comps;
	if (comps && !groups)
		printf(", %" PRId64 " collapsed computation%s (%" PRId64 " node%s, %" PRId64 " edge%s)",
		       comps, hs_s(comps), r->collapsed, hs_s(r->collapsed), r->n_links,
		       hs_s(r->n_links));
	else if (comps)
		printf(", %" PRId64 " collapsed computation%s (%" PRId64 " node%s)", comps, hs_s(comps),
		       r->collapsed, hs_s(r->collapsed));
	if (groups)
		printf(", %" PRId64 " %s box%s (%" PRId64 " node%s), %" PRId64 " edge%s between boxes", groups,
		       r->groups->what, groups == 1 ? "" : "es", r->grouped, hs_s(r->grouped), r->n_links,
		       hs_s(r->n_links));
	if (r->n_stubs)
		printf(", %" PRId64 " long edge%s cut", r->n_stubs, hs_s(r->n_stubs));
}

int dcli_print_text(const region *r, const dot_opts *o, dcli_timing *tm)
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
	print_boxes(r);
	printf("\n");
	if (r->note[0])
		printf("note: %s\n", r->note);
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

void dcli_print_timing(const dcli_timing *t, double end)
{
	char a[32], b[32], c[32];
	hs_unit_format(a, sizeof a, HS_U_SECONDS, t->open - t->start, 1);
	hs_unit_format(b, sizeof b, HS_U_SECONDS, t->region - t->open, 1);
	fprintf(stderr, "time: load %s, region %s", a, b);
	if (t->export > 0) {
		hs_unit_format(a, sizeof a, HS_U_SECONDS, t->export, 1);
		fprintf(stderr, ", export %s", a);
	}
	if (t->layout > 0) {
		hs_unit_format(a, sizeof a, HS_U_SECONDS, t->layout, 1);
		hs_unit_format(b, sizeof b, HS_U_SECONDS, t->graphviz, 1);
		hs_unit_format(c, sizeof c, HS_U_SECONDS, t->draw, 1);
		fprintf(stderr, ", layout %s (Graphviz dot %s), drawing and printing %s", a, b, c);
	}
	hs_unit_format(a, sizeof a, HS_U_SECONDS, end - t->start, 1);
	fprintf(stderr, ", total %s\n", a);
	if (t->r) {
		char what[240];
		region_work_text(&t->r->work, what, sizeof what);
		fprintf(stderr, "region: %s\n", what);
	}
}

/* A feature by its index (as before names): the values, or NULL. */
static double *heat_index(const hs_graph *g, int64_t idx, const char *what, char *name, size_t cap,
			  int *status)
{
	if (idx < 0 || idx >= g->feat_width) {
		*status = cli_usage_error("dot", "--heat: feature index %s is out of range (0..%d)", what,
					  g->feat_width - 1);
		return NULL;
	}
	double *v = malloc(((size_t)g->n_nodes + 1) * sizeof *v);
	if (!v) {
		*status = cli_oom("computing --heat %s", what);
		return NULL;
	}
	for (int64_t i = 0; i < g->n_nodes; i++)
		v[i] = graph_feat(g, i)[idx];
	snprintf(name, cap, "%s", hlo_node_feature_name((int)idx, g->feat_width));
	return v;
}

double *dcli_heat(query_draw *d, const hs_graph *g, const char *what, char *name, size_t cap,
		  int *status)
{
	hs_error err = {0};
	int64_t idx;
	int col;

	*status = 0;
	if (hs_parse_i64(what, &idx) == 0)
		return heat_index(g, idx, what, name, cap, status);
	double *v = query_draw_numbers(d, what, &col, &err);
	if (!v) {
		if (err.status != HS_EUSAGE)
			*status = cli_report(&err);
		else
			*status = cli_usage_error("dot", "--heat %s: %s; give a number of nodes: a field "
						  "(`hloscope query %s fields` lists them: a feature, cost, "
						  "flops, a --data column) or an expression of them", what,
						  err.msg, g->path);
		return NULL;
	}
	snprintf(name, cap, "%s", !strcmp(what, "cost") ? "cost (s)" : what);
	return v;
}
