/* profile.c - see profile.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "model/machine.h"
#include "model/metrics.h"
#include "model/profile.h"

const struct profile_unit profile_units[] = {
	{"measured_ns", 1e-9}, {"time_ns", 1e-9}, {"duration_ns", 1e-9}, {"ns", 1e-9},
	{"measured_us", 1e-6}, {"time_us", 1e-6}, {"us", 1e-6},
	{"measured_s", 1},     {"time_s", 1},     {"seconds", 1}, {NULL, 0},
};

/* The most common calls among the entry's measured instructions (the
 * smallest of equally common ones); 1 without calls. */
static double steps_of(const hs_graph *g, const double *calls, double *scratch)
{
	size_t n = 0;
	double best = 1;

	for (int64_t v = 0; calls && v < g->n_nodes; v++)
		if (!isnan(calls[v]) && calls[v] > 0 && (!g->hcomp_of || g->hcomp_of[v] == g->entry))
			scratch[n++] = calls[v];
	qsort(scratch, n, sizeof *scratch, hs_cmp_double);
	for (size_t i = 0, j, most = 0; i < n; i = j) {
		for (j = i; j < n && scratch[j] == scratch[i]; j++)
			;
		if (j - i > most)
			most = j - i, best = scratch[i];
	}
	return best;
}

static int by_time(const void *a, const void *b)
{
	const profile_row *x = a, *y = b;
	double tx = x->measured * x->calls, ty = y->measured * y->calls;
	return (tx < ty) - (tx > ty);
}

int profile_time_column(const hs_overlay *o, double *seconds)
{
	for (const struct profile_unit *u = profile_units; u->column; u++) {
		int col = overlay_find(o, u->column);
		if (col >= 0 && o->cols[col].numeric) {
			*seconds = u->seconds;
			return col;
		}
	}
	return -1;
}

int profile_compare(const hs_graph *g, const cost_estimate *est, const hs_overlay *o, profile_report *r,
		    hs_error *err)
{
	double unit = 1;
	int col = profile_time_column(o, &unit), cc = overlay_find(o, "calls");
	cost_step_parts step;

	memset(r, 0, sizeof *r);
	if (col >= 0)
		r->column = o->cols[col].name;
	else
		return hs_fail(err, HS_EDATA, "%s: no time column (measured_ns, time_ns, duration_ns, ns, measured_us, "
			       "time_us, us, measured_s, time_s or seconds)", o->path);
	const double *t = o->cols[col].num, *calls = cc >= 0 && o->cols[cc].numeric ? o->cols[cc].num : NULL;
	profile_row *rows = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *rows);
	double *p = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * 2 * sizeof *p), total = 0;
	if (!rows || !p || cost_step(g, est, &step) < 0) {
		free(rows);
		free(p);
		return hs_fail(err, HS_ENOMEM, "out of memory comparing with the profile");
	}
	r->steps = steps_of(g, calls, p);
	for (int64_t v = 0; v < g->n_nodes; v++) {
		if (isnan(t[v]))
			continue;
		if (est[v].unknown) {
			r->unknown++;
			continue;
		}
		profile_row *w = &rows[r->n];
		w->node = v;
		w->measured = t[v] * unit;
		w->predicted = est[v].seconds;
		w->calls = calls && !isnan(calls[v]) ? calls[v] / r->steps : 1;
		p[r->n] = w->predicted;
		p[g->n_nodes + r->n] = w->measured;
		r->n++;
	}
	r->spearman = metrics_spearman(p, p + g->n_nodes, (size_t)r->n);
	for (int64_t i = 0; i < r->n; i++) {
		const profile_row *w = &rows[i];
		double in = w->measured * w->calls, ratio = w->predicted / w->measured;
		total += in;
		r->predicted_same += w->predicted * w->calls;
		if (ratio >= 0.5 && ratio <= 2)
			r->within2x += in, r->n_within2x++;
	}
	r->measured_step = total;
	r->within2x = total > 0 ? r->within2x / total : NAN;
	r->predicted_step = step.seconds;
	qsort(rows, (size_t)r->n, sizeof *rows, by_time);
	r->n_top = r->n < PROFILE_TOP ? (int)r->n : PROFILE_TOP;
	memcpy(r->top, rows, (size_t)r->n_top * sizeof *rows);
	free(rows);
	free(p);
	if (!r->n)
		return hs_fail(err, HS_EDATA, "%s: names no costed instruction of the module", o->path);
	return 0;
}
