/* metrics.c - Kendall's tau-b, ordered-pair accuracy, top-k slowdown error.
 *
 * Pair counting follows Knight (1966): sort by (pred, runtime), count the
 * ties, then count the inversions of runtime left by a merge sort.  For the
 * sorted sequence, every pair untied in both vectors is either concordant
 * (no inversion) or discordant (one inversion), so
 *   concordant - discordant = n0 - n1 - n2 + n3 - 2 * inversions.
 */
#include "model/metrics.h"

#include <math.h>
#include <stdlib.h>

/* NaN sorts after every number and equal to itself, so a stray NaN cannot
 * break the sort's contract. */
static int cmp_num(double a, double b)
{
	int na = isnan(a), nb = isnan(b);

	if (na || nb)
		return na - nb;
	return (a > b) - (a < b);
}

static int same(double a, double b) { return cmp_num(a, b) == 0; }

/* qsort has no context argument, and a file-level pointer would not be
 * thread-safe, so the values themselves are sorted as records. */
struct rec {
	double x, y;
};

static int cmp_rec(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;
	int c = cmp_num(a->x, b->x);

	return c ? c : cmp_num(a->y, b->y);
}

/* Merge sort of y[lo, hi) using tmp; returns the strict inversions. */
static int64_t merge_count(double *y, double *tmp, size_t n)
{
	int64_t inv = 0;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				if (cmp_num(y[j], y[i]) < 0) {
					inv += (int64_t)(mid - i);
					tmp[k++] = y[j++];
				} else {
					tmp[k++] = y[i++];
				}
			}
			while (i < mid)
				tmp[k++] = y[i++];
			while (j < hi)
				tmp[k++] = y[j++];
		}
		for (size_t i = 0; i < n; i++)
			y[i] = tmp[i];
	}
	return inv;
}

static int64_t tie_pairs(int64_t run) { return run * (run - 1) / 2; }

int metrics_count_pairs(const double *pred, const double *runtime, size_t n,
			metrics_pairs *out)
{
	struct rec *r;
	double *y, *tmp;
	int64_t n1 = 0, n2 = 0, n3 = 0, inv, run_x = 1, run_xy = 1, run_y = 1;

	*out = (metrics_pairs){0};
	if (n < 2)
		return 0;
	r = malloc(n * sizeof *r);
	y = malloc(n * sizeof *y);
	tmp = malloc(n * sizeof *tmp);
	if (!r || !y || !tmp) {
		free(r);
		free(y);
		free(tmp);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		r[i] = (struct rec){pred[i], runtime[i]};
	qsort(r, n, sizeof *r, cmp_rec);
	for (size_t i = 1; i <= n; i++) {
		int sx = i < n && same(r[i].x, r[i - 1].x);
		int sxy = sx && same(r[i].y, r[i - 1].y);

		if (sx) {
			run_x++;
		} else {
			n1 += tie_pairs(run_x);
			run_x = 1;
		}
		if (sxy) {
			run_xy++;
		} else {
			n3 += tie_pairs(run_xy);
			run_xy = 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		y[i] = r[i].y;
	inv = merge_count(y, tmp, n);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && same(y[i], y[i - 1])) {
			run_y++;
		} else {
			n2 += tie_pairs(run_y);
			run_y = 1;
		}
	}
	out->pairs = (int64_t)n * ((int64_t)n - 1) / 2;
	out->ties_pred = n1;
	out->ties_truth = n2;
	out->ties_both = n3;
	out->discordant = inv;
	out->concordant = out->pairs - n1 - n2 + n3 - inv;
	free(r);
	free(y);
	free(tmp);
	return 0;
}

/* The three measures from the pair counts (n >= 2). */
static double tau_of(const metrics_pairs *p)
{
	double d = (double)(p->pairs - p->ties_pred) * (double)(p->pairs - p->ties_truth);
	return d <= 0 ? NAN : (double)(p->concordant - p->discordant) / sqrt(d);
}

static double tau_tiebroken_of(const metrics_pairs *p)
{
	double d = (double)p->pairs * (double)(p->pairs - p->ties_truth);
	if (p->ties_pred == p->pairs || d <= 0)
		return NAN;
	return (double)(p->concordant - p->discordant) / sqrt(d);
}

static double opa_of(const metrics_pairs *p)
{
	int64_t ordered = p->pairs - p->ties_truth;
	if (ordered <= 0 || p->ties_pred == p->pairs)
		return NAN;
	return (double)p->concordant / (double)ordered;
}

double metrics_kendall_tau(const double *pred, const double *runtime, size_t n)
{
	metrics_pairs p;
	return n < 2 || metrics_count_pairs(pred, runtime, n, &p) < 0 ? NAN : tau_of(&p);
}

double metrics_kendall_tau_tiebroken(const double *pred, const double *runtime, size_t n)
{
	metrics_pairs p;
	return n < 2 || metrics_count_pairs(pred, runtime, n, &p) < 0 ? NAN : tau_tiebroken_of(&p);
}

double metrics_opa(const double *pred, const double *runtime, size_t n)
{
	metrics_pairs p;
	return n < 2 || metrics_count_pairs(pred, runtime, n, &p) < 0 ? NAN : opa_of(&p);
}

int metrics_track_record(const double *pred, const double *runtime, const uint8_t *use, size_t n,
			 metrics_record *out)
{
	double *p = malloc((n ? n : 1) * sizeof *p), *y = malloc((n ? n : 1) * sizeof *y);
	size_t m = 0;

	out->n = 0;
	out->tau = out->tau_tiebroken = out->opa = NAN;
	if (!p || !y) {
		free(p);
		free(y);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!use || use[i]) {
			p[m] = pred[i];
			y[m++] = runtime[i];
		}
	out->n = (int64_t)m;
	metrics_pairs c;
	int rc = m >= 2 ? metrics_count_pairs(p, y, m, &c) : 0;
	if (m >= 2 && rc == 0) {
		out->tau = tau_of(&c);
		out->tau_tiebroken = tau_tiebroken_of(&c);
		out->opa = opa_of(&c);
	}
	free(p);
	free(y);
	return rc;
}

struct keyed {
	double key;
	int64_t index;
};

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = cmp_num(a->key, b->key);

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

int metrics_rank_order(const double *score, size_t n, int64_t *order)
{
	struct keyed *k = malloc((n ? n : 1) * sizeof *k);

	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){score[i], (int64_t)i};
	qsort(k, n, sizeof *k, cmp_keyed);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].index;
	free(k);
	return 0;
}

int metrics_ranks(const double *score, size_t n, int64_t *rank, uint8_t *tied)
{
	int64_t *order = malloc((n ? n : 1) * sizeof *order);

	if (!order || metrics_rank_order(score, n, order) < 0) {
		free(order);
		return -1;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && same(score[order[j + 1]], score[order[i]]))
			j++;
		for (size_t t = i; t <= j; t++) {
			rank[order[t]] = (int64_t)i + 1;
			if (tied)
				tied[order[t]] = j > i;
		}
		i = j + 1;
	}
	free(order);
	return 0;
}

double metrics_topk_error(const double *pred, const double *runtime, size_t n,
			  size_t k)
{
	double e;
	return metrics_topk(pred, runtime, n, k, &e) < 0 ? NAN : e;
}

int metrics_topk(const double *pred, const double *runtime, size_t n, size_t k, double *out)
{
	int64_t *order;
	double best = INFINITY, best_k = INFINITY;

	*out = NAN;
	if (n == 0 || k == 0)
		return 0;
	if (k > n)
		k = n;
	order = malloc(n * sizeof *order);
	if (!order || metrics_rank_order(pred, n, order) < 0) {
		free(order);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (runtime[i] < best)
			best = runtime[i];
	for (size_t i = 0; i < k; i++)
		if (runtime[order[i]] < best_k)
			best_k = runtime[order[i]];
	free(order);
	if (best > 0 && isfinite(best_k))
		*out = best_k / best - 1.0;
	return 0;
}

static int by_key(const void *x, const void *y, void *key)
{
	double a = ((const double *)key)[*(const size_t *)x], b = ((const double *)key)[*(const size_t *)y];
	return (a > b) - (a < b);
}

/* r[i]: the average rank (0-based) of v[i]; ord is scratch. */
static void avg_ranks(const double *v, size_t n, size_t *ord, double *r)
{
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof *ord, by_key, (void *)v);
	for (size_t i = 0, j; i < n; i = j + 1) {
		for (j = i; j + 1 < n && v[ord[j + 1]] == v[ord[i]]; j++)
			;
		for (size_t k = i; k <= j; k++)
			r[ord[k]] = (double)(i + j) / 2;
	}
}

double metrics_spearman(const double *a, const double *b, size_t n)
{
	size_t *ord = malloc((n ? n : 1) * sizeof *ord);
	double *ra = malloc((n ? n : 1) * sizeof *ra), *rb = malloc((n ? n : 1) * sizeof *rb);
	double sab = 0, saa = 0, sbb = 0, m = ((double)n - 1) / 2, r = NAN;

	if (ord && ra && rb && n >= 2) {
		avg_ranks(a, n, ord, ra);
		avg_ranks(b, n, ord, rb);
		for (size_t i = 0; i < n; i++) {
			sab += (ra[i] - m) * (rb[i] - m);
			saa += (ra[i] - m) * (ra[i] - m);
			sbb += (rb[i] - m) * (rb[i] - m);
		}
		if (saa > 0 && sbb > 0)
			r = sab / sqrt(saa * sbb);
	}
	free(ord);
	free(ra);
	free(rb);
	return r;
}
