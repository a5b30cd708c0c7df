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
		CHECK("opa with constant scores is NAN (as tau: nothing was ranked)", isnan(metrics_opa(k, a, 5)));
		CHECK("tie-broken tau with constant scores is NAN", isnan(metrics_kendall_tau_tiebroken(k, a, 5)));
		CHECK("tie-broken tau with constant runtimes is NAN", isnan(metrics_kendall_tau_tiebroken(a, k, 5)));
		CHECK_NEAR("tie-broken tau without ties is tau-b", metrics_kendall_tau_tiebroken(a, b, 5), -1, 1e-15);
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

	/* Ties broken at random: p = {1, 1, 2}, y = {1, 2, 3} has two orders,
	 * tau 1 (0 before 1) and 1/3 (1 before 0): mean 2/3, where tau-b says
	 * 2 / sqrt(2 * 3). */
	{
		double p[3] = {1, 1, 2}, y[3] = {1, 2, 3};

		CHECK_NEAR("tau-b rewards the tie", metrics_kendall_tau(p, y, 3), 2 / sqrt(6), 1e-15);
		CHECK_NEAR("tie-broken tau is the mean over both orders", metrics_kendall_tau_tiebroken(p, y, 3),
			   2.0 / 3.0, 1e-15);
	}

	/* A coarse predictor (two values) against random tie-breaking, drawn
	 * 4000 times: the expectation matches the mean of the draws. */
	{
		enum { N = 40, DRAWS = 4000 };
		hs_splitmix g = hs_splitmix_seed(7);
		double p[N], y[N], q[N], sum = 0;

		for (int i = 0; i < N; i++) {
			y[i] = (double)hs_splitmix_below(&g, 25);
			p[i] = y[i] > 12 ? 1 : 0;
		}
		for (int d = 0; d < DRAWS; d++) {
			for (int i = 0; i < N; i++)
				q[i] = p[i] + 0.5 * hs_splitmix_unit(&g);
			sum += metrics_kendall_tau(q, y, N);
		}
		CHECK_NEAR("tie-broken tau equals the mean of random tie-breaks (+-0.01)",
			   metrics_kendall_tau_tiebroken(p, y, N), sum / DRAWS, 0.01);
		CHECK("tau-b of the coarse predictor is higher than tie-broken",
		      metrics_kendall_tau(p, y, N) > metrics_kendall_tau_tiebroken(p, y, N) + 0.1);
	}

	/* One ranking: ties share the best rank and are marked. */
	{
		double s[6] = {0.5, 0.2, 0.5, NAN, 0.1, 0.5}, z[4] = {0, 0, 0, 0};
		int64_t r[6];
		uint8_t t[6];
		int64_t want[6] = {3, 2, 3, 6, 1, 3};
		uint8_t want_t[6] = {1, 0, 1, 0, 0, 1};
		int ok = metrics_ranks(s, 6, r, t) == 0;

		for (int i = 0; i < 6; i++)
			ok = ok && r[i] == want[i] && t[i] == want_t[i];
		CHECK("ranks: ties share the lowest rank, NAN last, ties marked", ok);
		ok = metrics_ranks(z, 4, r, t) == 0;
		for (int i = 0; i < 4; i++)
			ok = ok && r[i] == 1 && t[i] == 1;
		CHECK("ranks: all-zero scores are all rank 1, all tied", ok);
	}

	/* Track record over a subset. */
	{
		double p[6] = {1, 2, 3, 4, 5, 6}, y[6] = {1, 9, 2, 9, 3, 9};
		uint8_t use[6] = {1, 0, 1, 0, 1, 0};
		metrics_record rec;

		CHECK("track record runs", metrics_track_record(p, y, use, 6, &rec) == 0);
		CHECK("track record counts the used configs", rec.n == 3);
		CHECK_NEAR("track record tau over the subset", rec.tau, 1, 1e-15);
		CHECK_NEAR("track record opa over the subset", rec.opa, 1, 1e-15);
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
