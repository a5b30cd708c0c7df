/* dot_heat.c - heat mode's scale and colors, shared by the Graphviz
 * drawing and the terminal one.  See dot.h. */
#include "render/dot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ColorBrewer YlOrRd, 8 classes. */
static const char *const heat_fills[DOT_HEAT_BINS] = {
	"#ffffcc", "#ffeda0", "#fed976", "#feb24c",
	"#fd8d3c", "#fc4e2a", "#e31a1c", "#b10026",
};

const char *dot_heat_fill(int bin)
{
	if (bin < 0 || bin >= DOT_HEAT_BINS)
		return "#d9d9d9";
	return heat_fills[bin];
}

void dot_heat_scale_of(const double *v, const int64_t *ids, int64_t n, int log_mode,
		       dot_heat_scale *s)
{
	double lo = INFINITY, hi = -INFINITY, pos_lo = INFINITY;

	memset(s, 0, sizeof *s);
	for (int64_t i = 0; i < n; i++) {
		double x = v[ids ? ids[i] : i];
		if (!isfinite(x))
			continue;
		s->any = 1;
		if (x < lo)
			lo = x;
		if (x > hi)
			hi = x;
		if (x > 0 && x < pos_lo)
			pos_lo = x;
	}
	if (!s->any)
		return;
	if (log_mode < 0)
		s->log = lo > 0 && hi / lo > 100.0;
	else
		s->log = log_mode && hi > 0;
	if (s->log && lo <= 0)
		lo = pos_lo;
	s->lo = lo;
	s->hi = hi;
}

static double heat_map(const dot_heat_scale *s, double v)
{
	return s->log ? log10(v) : v;
}

int dot_heat_bin(const dot_heat_scale *s, double v)
{
	double a, b, t;
	int bin;

	if (!s->any || !isfinite(v))
		return -1;
	if (s->log && v <= 0)
		return 0;
	a = heat_map(s, s->lo);
	b = heat_map(s, s->hi);
	if (!(b > a))
		return 0;
	t = (heat_map(s, v) - a) / (b - a);
	bin = (int)floor(t * DOT_HEAT_BINS);
	if (bin < 0)
		bin = 0;
	if (bin >= DOT_HEAT_BINS)
		bin = DOT_HEAT_BINS - 1;
	return bin;
}

double dot_heat_edge(const dot_heat_scale *s, int b)
{
	double a = heat_map(s, s->lo), z = heat_map(s, s->hi);
	double x = a + (z - a) * b / DOT_HEAT_BINS;

	if (b >= DOT_HEAT_BINS)
		return s->hi;
	return s->log ? pow(10.0, x) : x;
}

double *dot_box_heat(const region *r, const dot_opts *o)
{
	const hs_graph *g = r->g;
	const region_groups *gr = r->groups;

	if (!o->heat || !r->n_boxes)
		return NULL;
	double *v = malloc((size_t)r->n_boxes * sizeof *v);
	int64_t *box = gr ? malloc(((size_t)gr->n + 1) * sizeof *box) : NULL;
	uint8_t *any = calloc((size_t)r->n_boxes, 1);
	if (!v || (gr && !box) || !any) {
		free(v);
		free(box);
		free(any);
		return NULL;
	}
	for (int64_t k = 0; gr && k < gr->n; k++)
		box[k] = -1;
	for (int64_t k = 0; k < r->n_boxes; k++) {
		v[k] = 0;
		if (gr && r->boxes[k].group >= 0)
			box[r->boxes[k].group] = k;
	}
	for (int64_t n = 0; gr && n < g->n_nodes; n++) {
		int32_t k = gr->of[n];
		if (k < 0 || box[k] < 0 || !isfinite(o->heat[n]) || (o->heat_sum && !o->heat_sum[n]))
			continue;
		v[box[k]] += o->heat[n];
		any[box[k]] = 1;
	}
	for (int64_t k = 0; k < r->n_boxes; k++)
		if (!any[k])
			v[k] = NAN;
	free(box);
	free(any);
	return v;
}

void dot_heat_scale_region(const region *r, const dot_opts *o, const double *box_heat,
			   dot_heat_scale *s)
{
	int64_t n = r->n_nodes + (box_heat ? r->n_boxes : 0);
	double *v = malloc(((size_t)n + 1) * sizeof *v);

	if (!v) { /* the nodes alone, then */
		dot_heat_scale_of(o->heat, r->nodes, r->n_nodes, o->heat_log, s);
		return;
	}
	for (int64_t i = 0; i < r->n_nodes; i++)
		v[i] = o->heat[r->nodes[i]];
	for (int64_t k = 0; box_heat && k < r->n_boxes; k++)
		v[r->n_nodes + k] = box_heat[k];
	dot_heat_scale_of(v, NULL, n, o->heat_log, s);
	free(v);
}
