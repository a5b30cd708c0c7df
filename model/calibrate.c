/* calibrate.c - isotonic calibration of scores (see calibrate.h). */
#include "model/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pt {
	double x, y, w; /* score, log runtime (mean), weight (configs) */
} pt;

static int cmp_pt(const void *pa, const void *pb)
{
	const pt *a = pa, *b = pb;

	return (a->x > b->x) - (a->x < b->x);
}

/* Pool adjacent violators over p[0..n) sorted by x with distinct x; merges
 * blocks whose means are out of order or equal.  Returns the block count;
 * blocks are written back into p as (weighted mean x, mean y, weight). */
static int64_t pava(pt *p, int64_t n)
{
	int64_t m = 0;

	for (int64_t i = 0; i < n; i++) {
		p[m++] = p[i];
		while (m >= 2 && p[m - 2].y >= p[m - 1].y) {
			pt *a = &p[m - 2], *b = &p[m - 1];
			double w = a->w + b->w;

			a->x = (a->x * a->w + b->x * b->w) / w;
			a->y = (a->y * a->w + b->y * b->w) / w;
			a->w = w;
			m--;
		}
	}
	return m;
}

int calib_fit(const double *score, const double *runtime, const uint8_t *use, int64_t n, calib *c,
	      hs_error *err)
{
	pt *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
	int64_t m = 0, d = 0, k;

	memset(c, 0, sizeof *c);
	if (!p)
		return hs_fail(err, HS_ENOMEM, "out of memory calibrating %lld scores", (long long)n);
	for (int64_t i = 0; i < n; i++)
		if ((!use || use[i]) && runtime[i] > 0 && isfinite(score[i]) && isfinite(runtime[i]))
			p[m++] = (pt){score[i], log(runtime[i]), 1};
	c->fitted = m;
	qsort(p, (size_t)m, sizeof *p, cmp_pt);
	/* Equal scores pool first: a map cannot separate them. */
	for (int64_t i = 0; i < m; i++) {
		if (d > 0 && p[d - 1].x == p[i].x) {
			p[d - 1].y = (p[d - 1].y * p[d - 1].w + p[i].y) / (p[d - 1].w + 1);
			p[d - 1].w += 1;
		} else {
			p[d++] = p[i];
		}
	}
	k = pava(p, d);
	if (k < 2) {
		free(p);
		return 0;
	}
	c->x = malloc((size_t)k * sizeof *c->x);
	c->y = malloc((size_t)k * sizeof *c->y);
	if (!c->x || !c->y) {
		free(p);
		calib_free(c);
		return hs_fail(err, HS_ENOMEM, "out of memory calibrating %lld scores", (long long)n);
	}
	for (int64_t i = 0; i < k; i++) {
		c->x[i] = p[i].x;
		c->y[i] = p[i].y;
	}
	c->n = k;
	c->slope = (c->y[k - 1] - c->y[0]) / (c->x[k - 1] - c->x[0]);
	c->ok = 1;
	free(p);
	return 0;
}

double calib_apply(const calib *c, double s)
{
	int64_t lo = 0, hi;

	if (!c->ok || isnan(s))
		return NAN;
	hi = c->n - 1;
	if (s <= c->x[0])
		return exp(c->y[0] + c->slope * (s - c->x[0]));
	if (s >= c->x[hi])
		return exp(c->y[hi] + c->slope * (s - c->x[hi]));
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;

		if (c->x[mid] <= s)
			lo = mid;
		else
			hi = mid;
	}
	return exp(c->y[lo] + (c->y[hi] - c->y[lo]) * (s - c->x[lo]) / (c->x[hi] - c->x[lo]));
}

void calib_free(calib *c)
{
	free(c->x);
	free(c->y);
	memset(c, 0, sizeof *c);
}
