/* fit_impl.h - what model/fit.c and model/fit_features.c share: the config
 * features of one graph, their Gram matrices and the scoring of every
 * config from a fitted model.  Internal to model/fit*.c.
 *
 *   fit_features.c  features (layout: node choices, per-position values,
 *                   counts; tile: numeric and one-hot columns), Gram
 *                   matrices, scores from the dual weights
 *   fit.c           kernel ridge, cross-validation, the prior, fit_run()
 */
#ifndef HS_FIT_IMPL_H
#define HS_FIT_IMPL_H

#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"
#include "model/prep.h"

typedef struct fitdata {
	int kind;
	int64_t C;
	/* Layout: the prep's entries and rows; nodes whose row varies. */
	prep *p;
	int64_t *used;          /* [n_used] node indices */
	int64_t n_used;
	int W;
	uint8_t *bucket;        /* [n_entries * W] one-hot bucket of each position */
	int *opi;               /* [K] index of the node's opcode among n_ops */
	int n_ops;
	int64_t d0;             /* n_ops * W * PREP_BUCKETS count features */
	/* Tile: explicit sparse rows, columns ascending. */
	int64_t d;
	int64_t *off, *col;
	double *val;
} fitdata;

/* The kernel is c[0] G2 + c[1] G1 + c[2] G0 / (varying nodes). */
typedef struct mix {
	double c[3];
} mix;

void fitdata_free(fitdata *f);
/* Layout features of g (HS_ENOMEM and -1 when out of memory). */
int fit_layout_features(hs_graph *g, fitdata *f, hs_error *err);
/* Tile features of g. */
int fit_tile_features(const hs_graph *g, fitdata *f, hs_error *err);
/* Indicator and numeric columns used. */
int64_t fit_feature_count(const fitdata *f);
/* Raw Gram matrices over the configs idx[0..n), each n x n row-major:
 * G2 node choices (tile: the explicit features), and for layout G1
 * per-position values and G0 counts.  Returns -1 when out of memory. */
int fit_grams(const fitdata *f, const int64_t *idx, int64_t n, double *G2, double *G1, double *G0);
/* Scores every config (out[f->C]) with the model fitted on train[0..n):
 * dual weights alpha, mean target ym, kernel mix m (k0 scales the count
 * kernel).  -1 when out of memory. */
int fit_score_all(const fitdata *f, const int64_t *train, int64_t n, const double *alpha, double ym,
	      const mix *m, double k0, double *out);

#endif
