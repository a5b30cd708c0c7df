/* profile.h - the analytic estimate against a measured per-instruction
 * profile (`hloscope profile`, docs/model.md "Against measured profiles").
 *
 * The profile is a data file laid over the graph (loader/overlay.h): each
 * row names an instruction, one numeric column is its measured time per
 * run (PROFILE_TIME_COLUMNS names the accepted columns and their units),
 * and an optional column `calls` says how many times it ran in the whole
 * profile.  The module ran steps = the most common `calls` of the entry
 * computation's instructions (1 without calls) times.
 */
#ifndef HS_PROFILE_H
#define HS_PROFILE_H

#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"
#include "loader/overlay.h"
#include "model/cost.h"

#define PROFILE_TOP 10

typedef struct profile_row {
	int64_t node;
	double measured;   /* seconds per run */
	double predicted;  /* seconds per run (cost_analytic) */
	double calls;      /* runs in one step */
} profile_row;

typedef struct profile_report {
	const char *column;     /* the time column used */
	int64_t n;              /* instructions measured and costed */
	int64_t unknown;        /* measured, of unknown cost */
	double steps;           /* executions of the module the profile holds */
	double spearman;        /* of predicted and measured per run, over n */
	double within2x;        /* share of the measured time in instructions predicted within 2x */
	int64_t n_within2x;
	double measured_step;   /* sum of measured * calls / steps */
	double predicted_same;  /* the same instructions as predicted */
	double predicted_step;  /* the whole module (cost_step) */
	int n_top;
	profile_row top[PROFILE_TOP]; /* the largest measured time per step, largest first */
} profile_report;

/* The names of the time columns profile_compare accepts, in the order it
 * looks, with what one unit is in seconds. */
extern const struct profile_unit {
	const char *column;
	double seconds;
} profile_units[];

/* The index of o's time column (the first of profile_units o has as a
 * numeric column) with *seconds its unit, or -1. */
int profile_time_column(const hs_overlay *o, double *seconds);

/* Compares est[] (cost_analytic of g) with the profile o laid over g.
 * 0; -1 with err set: no time column (HS_EDATA, naming those accepted), no
 * instruction measured, out of memory. */
int profile_compare(const hs_graph *g, const cost_estimate *est, const hs_overlay *o, profile_report *r,
		    hs_error *err);

#endif
