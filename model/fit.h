/* fit.h - the autotuning case: learn one graph's configs from a sample.
 *
 * fit_heldout() measures a random `fraction` of a graph's configs (the
 * training set: at most FIT_MAX_TRAIN of them, and fewer on layout graphs
 * with many configurable nodes, so that n^2 * nodes stays under 6e8), fits
 * a kernel ridge regression on config features and ranks every other
 * config:
 *
 *   layout  three kinds of indicator features, as three kernels:
 *           node choices: one per (configurable node, distinct layout row
 *           of that node), so every choice of every node has its own cost;
 *           values: one per (node, position, value), which generalizes to
 *           rows never measured (random search makes most rows unique);
 *           counts: per (opcode, position, value), the number of nodes
 *           taking it, shared across nodes (what little data needs).
 *           Nodes whose row never changes are left out.
 *   tile    the standardized t(x) of each config feature, plus an
 *           indicator per distinct value of features with at most 32 of
 *           them.
 *
 * The target is either the rank of the runtime among the training configs
 * or the standardized log runtime; it, the ridge strength (relative to the
 * kernel's mean diagonal) and the kernel weights (7 mixes of the three) are
 * chosen by 3-fold cross-validated Kendall tau on (at most 600 configs of)
 * the training set alone.  Nothing crosses graphs, so any
 * feature width works.
 */
#ifndef HS_FIT_H
#define HS_FIT_H

#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"

#define FIT_MAX_TRAIN 1500

typedef struct fit_opts {
	double fraction;         /* share of the configs to train on (when measured is NULL) */
	uint64_t seed;           /* picks the training set */
	const uint8_t *measured; /* [n_configs] or NULL: train on these configs (a random subset
				  * of them when they pass the cap) */
	const double *runtime;   /* [n_configs] or NULL: the runtimes to train on (the measured
				  * ones must be set); NULL: the graph's own */
} fit_opts;

typedef struct fit_result {
	int64_t n_train, n_heldout;
	int64_t n_wanted;       /* configs the fraction or the measured list asked for */
	int64_t cap;            /* the most this graph trains on (FIT_MAX_TRAIN or less) */
	int capped;             /* n_train < n_wanted: the cap applied */
	int64_t n_checked;      /* held-out configs with a known runtime: the metrics' n */
	int64_t n_features;     /* indicator and numeric columns used */
	double heldout_tau;     /* Kendall tau-b on the held-out configs (NAN if undefined) */
	double heldout_tau_tiebroken; /* metrics_kendall_tau_tiebroken on them */
	double heldout_opa;
	double cv_tau;          /* best cross-validated tau (NAN without CV) */
	double lambda;          /* chosen ridge strength (relative; NAN for the prior alone) */
	int prior_available;    /* the analytic estimate ranks this graph's configs */
	int prior_used;         /* the chosen model builds on it */
	int residual;           /* the chosen model has a kernel ridge part (0: the prior alone) */
	double prior_weight;    /* the prior's weight beta (NAN when not used) */
	double kernel[3];       /* weights of the node-choice, per-position and
				 * count kernels (layout; tile uses [0] only) */
	const char *target;     /* "rank" or "log" */
} fit_result;

/* pred (may be NULL) receives a score for every config (lower = faster);
 * is_train (may be NULL) marks the configs trained on with 1.  The
 * held-out metrics count the configs not trained on whose runtime is
 * known: all of them on a labeled graph with o->runtime NULL, else the
 * measured ones the cap left out.
 * Errors: HS_EUSAGE for a fraction outside (0, 1), no runtimes to train
 * on, or fewer than 2 configs on either side. */
int fit_run(hs_graph *g, const fit_opts *o, fit_result *r, double *pred, uint8_t *is_train, hs_error *err);

/* "analytic estimate + kernel ridge", "analytic estimate alone" or
 * "kernel ridge": the model the fit chose. */
const char *fit_model_name(const fit_result *r);

/* fit_run with a random `fraction` of the configs. */
int fit_heldout(hs_graph *g, double fraction, uint64_t seed, fit_result *r, double *pred,
		uint8_t *is_train, hs_error *err);

#endif
