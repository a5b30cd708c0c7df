/* nn_loss.c - the ranking losses on a batch of scores (nn_rank_loss in
 * nn.h): pairwise hinge and ListMLE, with their gradients. */
#include "model/nn.h"

#include <math.h>
#include <stdlib.h>

struct ordered {
	double y;
	int64_t i;
};

static int cmp_ordered(const void *pa, const void *pb)
{
	const struct ordered *a = pa, *b = pb;

	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static double logaddexp(double a, double b)
{
	double m = a > b ? a : b;

	if (m == -INFINITY)
		return m;
	return m + log(exp(a - m) + exp(b - m));
}

double nn_rank_loss(const double *s, const double *y, int64_t n, int loss, double *ds)
{
	double total = 0;

	if (ds)
		for (int64_t i = 0; i < n; i++)
			ds[i] = 0;
	if (n < 2)
		return 0;
	if (loss == NN_LOSS_HINGE) {
		int64_t pairs = 0;

		for (int64_t i = 0; i < n; i++)
			for (int64_t j = i + 1; j < n; j++)
				pairs += y[i] != y[j];
		if (pairs == 0)
			return 0;
		for (int64_t i = 0; i < n; i++)
			for (int64_t j = i + 1; j < n; j++) {
				int64_t fast, slow;
				double l;

				if (y[i] == y[j])
					continue;
				fast = y[i] < y[j] ? i : j;
				slow = fast == i ? j : i;
				l = 1.0 - (s[slow] - s[fast]);
				if (l > 0) {
					total += l;
					if (ds) {
						ds[slow] -= 1.0 / (double)pairs;
						ds[fast] += 1.0 / (double)pairs;
					}
				}
			}
		return total / (double)pairs;
	}
	/* ListMLE with utilities u = -s, in the measured order pi (fastest
	 * first): sum_i [log sum_{t >= i} exp(u_pi(t)) - u_pi(i)]. */
	struct ordered *o = malloc((size_t)n * sizeof *o);
	double *lse = malloc((size_t)n * sizeof *lse);

	if (!o || !lse) {
		free(o);
		free(lse);
		return NAN;
	}
	for (int64_t i = 0; i < n; i++)
		o[i] = (struct ordered){y[i], i};
	qsort(o, (size_t)n, sizeof *o, cmp_ordered);
	lse[n - 1] = -s[o[n - 1].i];
	for (int64_t i = n - 2; i >= 0; i--)
		lse[i] = logaddexp(-s[o[i].i], lse[i + 1]);
	for (int64_t i = 0; i < n; i++)
		total += lse[i] + s[o[i].i];
	if (ds) {
		/* d/du_pi(t) = sum_{i <= t} exp(u_pi(t) - lse_i) - 1. */
		double acc = -INFINITY;

		for (int64_t t = 0; t < n; t++) {
			double u = -s[o[t].i], du;

			acc = logaddexp(acc, -lse[t]);
			du = exp(u + acc) - 1.0;
			ds[o[t].i] = -du / (double)n;
		}
	}
	free(o);
	free(lse);
	return total / (double)n;
}
