/* test_model_metrics.c - Kendall tau-b, OPA and top-k slowdown error.
 *
 * The expected values were computed independently with numpy
 * (/usr/bin/python3, numpy 1.24) by brute force over all pairs:
 *   taub: sum(sign(dx) * sign(dy)) / sqrt((n0 - ties_x) * (n0 - ties_y))
 *   opa:  sum([y_i > y_j] * [p_i > p_j]) / sum([y_i > y_j])
 *   topk: y[lexsort((arange(n), p))[:k]].min() / y.min() - 1
 * and pasted here; random vectors are also checked against an O(n^2)
 * count written in this file.
 */
#include <math.h>
#include <stdlib.h>

#include "base/rng.h"
#include "model/metrics.h"
#include "t.h"

struct fixed {
	const char *name;
	double p[10], y[10];
	size_t n;
	double tau, opa, top1, top3;
};

static const struct fixed cases[] = {
	{"A no ties", {1, 2, 3, 4, 5, 6, 7, 8}, {1, 3, 2, 4, 6, 5, 8, 7}, 8,
	 0.7857142857142857, 0.8928571428571429, 0.0, 0.0},
	{"B ties in both", {1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, {2, 1, 4, 3, 3, 6, 5, 5, 9, 8}, 10,
	 0.79570065658118, 0.8372093023255814, 1.0, 0.0},
	{"C ties, fractions", {0.5, 0.5, 0.5, 0.1, 0.9, 0.2, 0.7, 0.7}, {10, 12, 10, 11, 30, 9, 20, 25}, 8,
	 0.7071067811865476, 0.7777777777777778, 0.22222222222222232, 0.0},
	{"D truth ties", {3, 1, 2, 5, 4}, {30, 30, 10, 40, 40}, 5,
	 0.6708203932499369, 0.875, 2.0, 0.0},
};

static double brute_tau(const double *p, const double *y, size_t n)
{
	double s = 0, n0 = 0, t1 = 0, t2 = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double a = (p[i] > p[j]) - (p[i] < p[j]), b = (y[i] > y[j]) - (y[i] < y[j]);

			s += a * b;
			n0++;
			t1 += a == 0;
			t2 += b == 0;
		}
	return s / sqrt((n0 - t1) * (n0 - t2));
}

int main(void)
{
	char name[128];

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const struct fixed *f = &cases[c];

		snprintf(name, sizeof name, "tau-b %s", f->name);
		CHECK_NEAR(name, metrics_kendall_tau(f->p, f->y, f->n), f->tau, 1e-12);
		snprintf(name, sizeof name, "opa %s", f->name);
		CHECK_NEAR(name, metrics_opa(f->p, f->y, f->n), f->opa, 1e-12);
		snprintf(name, sizeof name, "top-1 error %s", f->name);
		CHECK_NEAR(name, metrics_topk_error(f->p, f->y, f->n, 1), f->top1, 1e-12);
		snprintf(name, sizeof name, "top-3 error %s", f->name);
		CHECK_NEAR(name, metrics_topk_error(f->p, f->y, f->n, 3), f->top3, 1e-12);
	}

	/* Reversed order is -1, identical order 1, constant vectors undefined. */
	{
		double a[5] = {1, 2, 3, 4, 5}, b[5] = {5, 4, 3, 2, 1}, k[5] = {2, 2, 2, 2, 2};

		CHECK_NEAR("tau of a reversed order is -1", metrics_kendall_tau(a, b, 5), -1, 1e-15);
		CHECK_NEAR("tau of the same order is 1", metrics_kendall_tau(a, a, 5), 1, 1e-15);
		CHECK("tau with constant scores is NAN", isnan(metrics_kendall_tau(k, a, 5)));
		CHECK("tau with constant runtimes is NAN", isnan(metrics_kendall_tau(a, k, 5)));
		CHECK("tau of one element is NAN", isnan(metrics_kendall_tau(a, a, 1)));
		CHECK_NEAR("opa of a perfect order is 1", metrics_opa(a, a, 5), 1, 1e-15);
		CHECK_NEAR("opa with constant scores is 0 (ties count as wrong)", metrics_opa(k, a, 5), 0, 1e-15);
		CHECK("opa with constant runtimes is NAN", isnan(metrics_opa(a, k, 5)));
		CHECK_NEAR("top-k clamps k to n", metrics_topk_error(b, a, 5, 99), 0, 1e-15);
		CHECK_NEAR("top-1 of the worst pick", metrics_topk_error(b, a, 5, 1), 4, 1e-15);
		CHECK("top-0 is NAN", isnan(metrics_topk_error(a, a, 5, 0)));
	}

	/* Score ties in top-k: the lower index wins. */
	{
		double p[3] = {1, 1, 2}, y[3] = {9, 3, 6};

		CHECK_NEAR("top-1 breaks score ties by index", metrics_topk_error(p, y, 3, 1), 2, 1e-15);
	}

	/* Random vectors with many ties against the O(n^2) count. */
	{
		hs_splitmix g = hs_splitmix_seed(42);
		int worst_ok = 1;

		for (int trial = 0; trial < 50; trial++) {
			size_t n = 2 + hs_splitmix_below(&g, 300);
			double *p = malloc(n * sizeof *p), *y = malloc(n * sizeof *y);
			double t, b;

			for (size_t i = 0; i < n; i++) {
				p[i] = (double)hs_splitmix_below(&g, 1 + (uint64_t)trial % 7);
				y[i] = (double)hs_splitmix_below(&g, 12) + 0.5 * p[i];
			}
			t = metrics_kendall_tau(p, y, n);
			b = brute_tau(p, y, n);
			if (!(isnan(t) && isnan(b)) && !(fabs(t - b) < 1e-12))
				worst_ok = 0;
			free(p);
			free(y);
		}
		CHECK("O(n log n) tau-b equals the O(n^2) count on 50 random tied vectors", worst_ok);
	}
	T_DONE();
}
