/* train.h - training the learned rankers.
 *
 * A head (layout or tile) is trained on prepared graphs of its kind with
 * Adam, a cosine learning-rate decay and global-norm gradient clipping.
 * Each step takes `tasks` batches (one graph and up to `batch` of its
 * distinct configs each); the batches run on up to `threads` threads, each
 * writing its own gradient buffer, and the buffers are summed in task
 * order, so a given --seed gives the same model whatever --threads is.
 *
 * Validation: the configs of `valid` graphs when given; otherwise a
 * `valid_fraction` of every training graph's distinct configs is held out
 * (graphs with fewer than 10 distinct configs keep them all for training).
 * The head keeps the parameters of the epoch with the best mean validation
 * Kendall tau, ties broken at random (the last epoch when nothing can be
 * validated).
 *
 * The gate of its correction to the analytic prior (nn.h) is chosen on
 * graphs the correction did not train on: the `valid` graphs when given;
 * else folds of the training graphs (leave-one-graph-out up to
 * TRAIN_MAX_FOLDS graphs with distinct configs, that many folds beyond),
 * each held out of a training with the same options and half the epochs.
 * The gate is the largest of 1, 1/2, 1/4 that ranks no held-out graph worse
 * than the estimate alone (tau, ties broken at random) and ranks them
 * better on average; 0 otherwise, and with fewer than 2 training graphs to
 * rank and no `valid` graphs.  With gate 0 the head ranks as the estimate.
 * The node statistics (no runtimes) come from all training graphs.
 *
 * Ownership: train_head() returns a head the caller frees with
 * nn_head_free() (or hands to model_from_heads()).  It standardizes the
 * given preps in place with the statistics it computes.
 */
#ifndef HS_TRAIN_H
#define HS_TRAIN_H

#include <stdint.h>

#include "base/error.h"
#include "model/model.h"
#include "model/nn.h"
#include "model/prep.h"

typedef struct train_progress {
	const char *head;    /* "layout" / "tile" */
	int fold, folds;     /* a fold of the gate's choice (1..folds), 0: the head */
	int epoch, epochs;
	double loss;         /* mean training loss of the epoch */
	double valid_tau;    /* NAN when nothing could be validated */
	double valid_top5;   /* tile: mean top-5 slowdown error, else NAN */
	double seconds;      /* this epoch */
	int best;            /* this epoch is the best so far */
} train_progress;

typedef struct train_opts {
	int epochs;          /* 40 */
	int batch;           /* distinct configs per batch, 32 */
	int tasks;           /* batches per step, 4 */
	int max_batches;     /* per graph and epoch, 12 */
	double lr;           /* 0.002 */
	double weight_decay; /* decoupled, 1e-4 */
	int loss;            /* enum nn_loss */
	int hidden, layers, readout, opemb, cfg_hops;
	uint64_t seed;
	int threads;
	double valid_fraction; /* 0.15 */
	void (*progress)(void *ctx, const train_progress *p);
	void *ctx;
} train_opts;

void train_defaults(train_opts *o);

#define TRAIN_MAX_FOLDS 4
#define TRAIN_GATES 4        /* 1, 1/2, 1/4, 0 */

enum train_gate_from { TRAIN_GATE_NONE, TRAIN_GATE_FOLDS, TRAIN_GATE_VALID };

/* Graphs held out for the gate: one fold, or the valid graphs. */
typedef struct train_fold {
	int graphs;          /* those with every tau defined */
	const char *name;    /* the first one's (the prep's name) */
	double tau[TRAIN_GATES]; /* their mean tau (ties broken at random) with gate
			      * 1, 1/2, 1/4, and 0: the estimate alone */
} train_fold;

typedef struct train_report {
	int best_epoch;      /* 1-based; 0 when no epoch ran */
	double best_tau;     /* mean validation tau (ties broken at random) of that
			      * epoch with the chosen gate (NAN if none) */
	double gate;         /* the correction's gate (nn.h): 1, 1/2, 1/4 or 0 */
	int gate_from;       /* enum train_gate_from: NONE when nothing could show it */
	int folds, fold_epochs;
	double fold_seconds; /* the folds' trainings together */
	train_fold fold[TRAIN_MAX_FOLDS]; /* [folds], or [0] the valid graphs */
	double seconds_per_epoch;
	int64_t graphs, configs, distinct_configs;
} train_report;

/* Trains a head of `kind` on graphs[0..n) (all of that kind and labeled).
 * valid may be NULL.  Errors: HS_EUSAGE when there is nothing to train on
 * or widths disagree between graphs. */
nn_head *train_head(prep **graphs, int n, prep **valid, int n_valid, int kind,
		    const train_opts *o, train_report *rep, hs_error *err);

/* The prep options a head's dimensions imply. */
void train_prep_opts(const nn_dims *d, prep_opts *po);

/* Wraps trained heads (either may be NULL, not both) into a model that
 * owns them; meta is copied (may be NULL). */
hs_model *model_from_heads(nn_head *layout, nn_head *tile, const char *meta, hs_error *err);

#endif
