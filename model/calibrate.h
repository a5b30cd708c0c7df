/* calibrate.h - a learned ranker's unitless scores turned into times.
 *
 * A ranker's scores only order configs.  Where a graph has measured
 * runtimes, calib_fit() learns a monotone map from score to runtime on the
 * measured configs: scores that are equal are pooled first, then isotonic
 * regression (pool adjacent violators) fits a non-decreasing log runtime
 * per score block, blocks with equal values are merged, and the blocks'
 * (mean score, mean log runtime) points are joined by straight lines and
 * extended past both ends with the slope of the whole fit.  The map is
 * strictly increasing, so calibrated times keep every config's rank and
 * every tie; the fit is in log space, so times stay positive.
 *
 * When the scores do not order the measured runtimes at all (the fit
 * pools into one block) there is no map: ok is 0 and callers show the
 * scores as scores.
 *
 * Ownership: calib_fit() fills c; calib_free() releases it.
 */
#ifndef HS_CALIBRATE_H
#define HS_CALIBRATE_H

#include <stdint.h>

#include "base/error.h"

typedef struct calib {
	int ok;          /* 1 when the map exists */
	int64_t n;       /* knots */
	double *x, *y;   /* [n] knots: score, log runtime; both strictly increasing */
	double slope;    /* log runtime per score unit past the ends */
	int64_t fitted;  /* measured configs the map was fitted on */
} calib;

/* Fits on the configs i < n with use[i] != 0 (use NULL: all) and a
 * positive runtime.  Returns 0 (c->ok says whether a map exists), or -1
 * with err set when out of memory. */
int calib_fit(const double *score, const double *runtime, const uint8_t *use, int64_t n, calib *c,
	      hs_error *err);

/* The calibrated runtime of a score (the runtime's unit: ns for layout,
 * normalized for tile); NAN when !c->ok or the score is NAN. */
double calib_apply(const calib *c, double score);

void calib_free(calib *c);

#endif
