/* predictor.h - the active predictor of one graph, as every command and
 * view shows it: its scores, ranks with ties marked, its times, and its
 * track record on this graph.
 *
 *   times   the analytic estimate gives nanoseconds.  Its absolute scale is
 *           off by a graph-dependent factor (docs/model.md, "Absolute
 *           times", has it for the real files at hand): where the graph
 *           has measured runtimes, its times are the estimate times one
 *           factor, the median ratio of measured runtime to estimate over
 *           the measured configs (PRED_TIME_CALIBRATED, calib_factor; every
 *           rank and tie kept); otherwise the bare estimate (PRED_TIME_NS,
 *           "estimate").  A learned ranker's or fit's scores have no unit:
 *           where the graph has measured runtimes they are calibrated
 *           (calibrate.h, a monotone map) on the measured configs (fit: on
 *           those it trained on) and shown as times in the runtime's unit
 *           (PRED_TIME_CALIBRATED: ns for layout, normalized for tile);
 *           otherwise they stay scores (PRED_TIME_SCORE, time NULL).
 *   record  Kendall tau, tie-broken tau and OPA on the measured configs
 *           (fit: on the held-out ones only); record.n == 0 when the graph
 *           has no measured runtimes to check against.
 *
 * Ownership: predictor_from_model() / predictor_from_fit() fill a struct
 * released by predictor_free().
 */
#ifndef HS_PREDICTOR_H
#define HS_PREDICTOR_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"
#include "model/metrics.h"
#include "model/model.h"

typedef enum { PRED_TIME_NS, PRED_TIME_CALIBRATED, PRED_TIME_SCORE } pred_time_kind;

typedef struct predictor {
	char label[128];        /* "analytic estimate", "sage-ranker v1 (layout)", "fit, kernel ridge on 20% (232 configs)" */
	int64_t n;              /* configs */
	double *score;          /* [n] lower = predicted faster */
	double *time;           /* [n] or NULL (PRED_TIME_SCORE) */
	pred_time_kind time_kind;
	double calib_factor;    /* analytic estimate, calibrated: time = score * calib_factor (else NAN) */
	int64_t calib_configs;  /* measured configs the times were calibrated on (0: none) */
	int64_t *rank;          /* [n] competition ranks (metrics_ranks) */
	uint8_t *tied;          /* [n] 1 where another config has the same score */
	int64_t n_tied;         /* configs that share their rank */
	uint8_t *trained;       /* [n] fit: configs trained on; NULL otherwise */
	int64_t n_trained;
	metrics_record record;  /* see above */
	double fit_fraction;    /* fit: the share asked for */
} predictor;

/* m NULL: the analytic estimate.  Errors as model_predict_configs. */
int predictor_from_model(predictor *p, const hs_model *m, hs_graph *g, hs_error *err);

/* fit_heldout() on the graph's own measured runtimes. */
int predictor_from_fit(predictor *p, hs_graph *g, double fraction, uint64_t seed, hs_error *err);

void predictor_free(predictor *p);

/* "tau 0.757 (ties broken at random 0.755), OPA 0.876 on 927 held-out
 * configs", or "no measured runtimes to check against"; undefined values
 * are "n/a" with the reason. */
void predictor_record_text(const predictor *p, char *buf, size_t cap);


/* What kind of time p->time is, one name wherever a prediction is shown
 * (predict, compare, query, the explorer): "estimate" (the analytic
 * estimate's own nanoseconds), "calibrated" (the estimate times one factor
 * fitted on the measured configs), "learned" (a learned ranker's or a
 * fit's scores mapped to times on the measured configs); NULL when there
 * are only scores. */
const char *predictor_time_kind(const predictor *p);

/* 1 when p->time is in nanoseconds: the estimate, or any time on a layout
 * graph (calibrated to its runtimes, ns); a tile graph's calibrated times
 * are normalized runtimes. */
int predictor_time_ns(const predictor *p, const hs_graph *g);

#endif
