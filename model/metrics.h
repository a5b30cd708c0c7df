/* metrics.h - the TpuGraphs paper's ranking metrics.
 *
 * Convention everywhere: lower is better.  `pred` holds a model's scores
 * (lower = predicted faster) and `runtime` the measured runtimes, so a
 * perfect model has Kendall's tau 1 and ordered-pair accuracy 1.
 *
 * The functions allocate scratch memory internally (O(n)) and never keep
 * pointers to their arguments.  They return NAN when the metric is
 * undefined (see each function); callers print NAN as "n/a" / JSON null.
 */
#ifndef HS_METRICS_H
#define HS_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* Pair counts behind tau-b and OPA, over the n*(n-1)/2 pairs {i, j}. */
typedef struct metrics_pairs {
	int64_t pairs;       /* n0 = n(n-1)/2 */
	int64_t ties_pred;   /* n1: pairs tied in pred */
	int64_t ties_truth;  /* n2: pairs tied in runtime */
	int64_t ties_both;   /* n3: pairs tied in both */
	int64_t concordant;  /* untied in both, same order */
	int64_t discordant;  /* untied in both, opposite order */
} metrics_pairs;

/* Counts the pairs in O(n log n) (Knight's algorithm).  Returns 0, or -1
 * when out of memory (counts then all zero). */
int metrics_count_pairs(const double *pred, const double *runtime, size_t n,
			metrics_pairs *out);

/* Kendall's tau-b with ties in either vector:
 *   (concordant - discordant) / sqrt((n0 - n1) * (n0 - n2)).
 * NAN when n < 2 or when either vector is constant (0/0), as scipy.
 * These three count the pairs each time, and are NAN when memory runs out
 * too: metrics_track_record counts once and says so. */
double metrics_kendall_tau(const double *pred, const double *runtime, size_t n);

/* Kendall's tau-b with the ties in `pred` broken at random, as its
 * expected value over all tie-breaking orders:
 *   (concordant - discordant) / sqrt(n0 * (n0 - n2)).
 * A pair tied in pred becomes concordant or discordant with equal odds, so
 * it adds nothing on average, and pred has no ties left to correct for.
 * A predictor cannot gain by tying configs it cannot tell apart (tau-b
 * would reward it).  NAN when n < 2 or either vector is constant. */
double metrics_kendall_tau_tiebroken(const double *pred, const double *runtime, size_t n);

/* Ordered-pair accuracy as the TpuGraphs paper defines it: among the pairs
 * whose runtimes differ, the share that the scores order the same way,
 * strictly (a tie in the scores counts as wrong).  NAN when no two runtimes
 * differ or when the scores are constant (as tau: nothing was ranked). */
double metrics_opa(const double *pred, const double *runtime, size_t n);

/* How well a predictor ranks a set of measured configs. */
typedef struct metrics_record {
	int64_t n;            /* configs counted */
	double tau;           /* Kendall tau-b */
	double tau_tiebroken; /* metrics_kendall_tau_tiebroken */
	double opa;
} metrics_record;

/* The record over the configs i with use[i] != 0 (use NULL: all n), the
 * pairs counted once.  Undefined values are NAN as above.  Returns 0, or -1
 * when out of memory. */
int metrics_track_record(const double *pred, const double *runtime, const uint8_t *use, size_t n,
			 metrics_record *out);

/* Competition ranks, the one ranking every view and command shows:
 * rank[i] = 1 + the number of scores strictly lower than score[i], so ties
 * share a rank (NAN sorts after every number, equal to other NANs).
 * tied (may be NULL) receives 1 where another score equals score[i].
 * Returns 0, or -1 when out of memory. */
int metrics_ranks(const double *score, size_t n, int64_t *rank, uint8_t *tied);

/* Top-k slowdown error: (best runtime among the k configs with the lowest
 * scores / best runtime overall) - 1.  Score ties are broken by the lower
 * index.  k is clamped to n.  *out is NAN when n == 0 or k == 0 or the best
 * runtime is not positive.  Returns 0, or -1 when out of memory. */
int metrics_topk(const double *pred, const double *runtime, size_t n, size_t k, double *out);
/* The same as a value: NAN also when out of memory. */
double metrics_topk_error(const double *pred, const double *runtime, size_t n,
			  size_t k);

/* Fills order[n] with the indices sorted by ascending score (ties: lower
 * index first).  Returns 0, or -1 when out of memory. */
int metrics_rank_order(const double *score, size_t n, int64_t *order);

/* Spearman's rank correlation: Pearson's r of the ranks, ties given their
 * average rank.  NAN when n < 2, either vector is constant, or out of
 * memory. */
double metrics_spearman(const double *a, const double *b, size_t n);

#endif
