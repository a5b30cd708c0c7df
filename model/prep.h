/* prep.h - a graph turned into what the learned rankers read.
 *
 * Everything here is config-independent work done once per graph:
 *
 *  - the encoder graph: for layout, the nodes within `radius` undirected hops
 *    of a configurable node (the receptive field of a `radius`-layer
 *    encoder, so pruning changes no configurable node's embedding); for
 *    tile, the whole graph.  Node inputs are t(x) = sign(x) * log1p(|x|) of
 *    the node features, standardized later with the model's statistics.
 *  - layout configs as "entries": the distinct 18-value rows each
 *    configurable node takes across configs.  rows[c * K + k] names the
 *    entry of node k in config c, so per-node work can be cached per entry.
 *  - links between configurable nodes: N_op(k) are the configurable nodes
 *    reached from k going operand-ward through at most `cfg_hops` edges
 *    whose intermediate nodes are not configurable; N_us(k) user-ward.
 *  - duplicate configs (identical rows / identical tile config features)
 *    grouped: uniq_rep[u] is the first config of group u, uniq_of[c] its
 *    group, uniq_runtime[u] the mean runtime of the group.
 *  - with prep_opts.prior, the analytic prior: the log of each config's
 *    analytic estimate (cost.h), standardized over the graph's configs,
 *    which the learned rankers add their correction to.
 *
 * Ownership: prep_layout() / prep_tile() return a prep freed by prep_free();
 * it copies what it needs, so the hs_graph may be freed right after.
 */
#ifndef HS_PREP_H
#define HS_PREP_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "loader/graph.h"

/* One-hot buckets per layout config position: -1, 0..5, other. */
#define PREP_BUCKETS 8
/* The bucket of a layout value (node_config_feat): -1 is 0, the whole
 * numbers 0..5 are 1..6, anything else PREP_BUCKETS - 1.  The learned
 * rankers' features and fit's count features share it. */
int prep_bucket(float v);
/* Dense features per entry when the config width is the documented 18:
 * PREP_DENSE_T for each of the output, input and kernel layouts (see
 * prep.c's layout_dense). */
#define PREP_DENSE_T 10
#define PREP_DENSE (3 * PREP_DENSE_T)
/* Tile configs get these analytic columns after config_feat's (see
 * cost.h): log of the padding factor, log1p of the tile count and log of
 * the analytic estimate in ns. */
#define PREP_TILE_EXTRA 3

/* Edge features between linked configurable nodes (see prep_edge_feats). */
#define PREP_EDGE 6

typedef struct prep {
	hs_kind kind;
	char *path;
	char *name;
	int feat_width;

	/* Encoder graph. */
	int64_t n;             /* nodes */
	int64_t *node_of;      /* [n] original node id */
	float *x;              /* [n * feat_width] t(features), standardized by prep_standardize */
	int standardized;
	uint8_t *op;           /* [n] opcode, 0 when above HLO_MAX_OPCODE */
	int64_t *op_off, *op_idx; /* operands within the encoder graph */
	int64_t *us_off, *us_idx; /* users */

	/* Configs. */
	int64_t n_configs;
	int labeled;
	double *runtime;       /* [n_configs] as hs_graph.runtime */
	int64_t n_uniq;
	int64_t *uniq_rep;     /* [n_uniq] */
	int64_t *uniq_of;      /* [n_configs] */
	double *uniq_runtime;  /* [n_uniq] mean runtime of the group */
	double *prior;         /* [n_configs] standardized log analytic estimate, or NULL
				* (not asked for, n/a, or the same for every config) */

	/* Layout. */
	int64_t K;             /* configurable nodes */
	int64_t *cfg_enc;      /* [K] encoder index of configurable node k */
	int64_t *cfg_node;     /* [K] original node id */
	int ncf_width;
	int ccols;             /* one-hot columns + dense columns */
	int64_t n_entries;
	int64_t *entry_base;   /* [K + 1] entries of node k: entry_base[k] .. [k+1]-1 */
	int32_t *entry_node;   /* [n_entries] k */
	float *entry_val;      /* [n_entries * ncf_width] the row's values */
	int16_t *entry_hot;    /* [n_entries * ncf_width] one-hot column per position */
	float *entry_dense;    /* [n_entries * PREP_DENSE] (width 18 only) */
	int32_t *entry_out;    /* [n_entries] code of the output layout (-1 unset) */
	int32_t *entry_in;     /* [n_entries] code of the input layout */
	int32_t *rows;         /* [n_configs * K] entry id */
	int64_t *nop_off, *nop_idx; /* N_op lists, values in 0..K-1 */
	int64_t *nus_off, *nus_idx; /* N_us lists */

	/* Tile. */
	int config_width;      /* config_feat's width + PREP_TILE_EXTRA */
	float *cfg;            /* [n_configs * config_width] t(config_feat) then the
				* analytic columns, standardized later */
} prep;

typedef struct prep_opts {
	int radius;          /* encoder layers: pruning radius for layout */
	int cfg_hops;        /* reach of N_op / N_us */
	int64_t max_configs; /* > 0: keep a random subset of at most this many
			      * configs (training on huge files); 0: all */
	uint64_t seed;       /* picks that subset */
	int prior;           /* 1: compute the analytic prior (prep.prior) */
} prep_opts;

/* With max_configs set, p->n_configs is the subset's size and the configs
 * are renumbered 0..n-1 (in their original order). */
prep *prep_layout(hs_graph *g, const prep_opts *o, hs_error *err);
/* o may be NULL (all configs). */
prep *prep_tile(const hs_graph *g, const prep_opts *o, hs_error *err);
/* Either of the above by the graph's kind. */
prep *prep_graph(hs_graph *g, const prep_opts *o, hs_error *err);
void prep_free(prep *p);

/* Standardizes x (and cfg for tile) in place: (v - mean) / sd, sd 0 treated
 * as 1.  cmean/csd may be NULL for layout.  Idempotent per prep. */
void prep_standardize(prep *p, const float *mean, const float *sd,
		      const float *cmean, const float *csd);

/* The transform applied to raw features. */
float prep_t(float v);

/* Number of config columns for a layout config width. */
int prep_ccols(int ncf_width);

/* Edge features of node k in config c (PREP_EDGE values):
 *   mean over j in N_op(k): [out_j == in_k, both set and different, out_j == out_k]
 *   mean over j in N_us(k): [out_k == in_j, both set and different, out_j == out_k]
 * where "==" needs both layouts set (not all -1). */
void prep_edge_feats(const prep *p, const int32_t *row, int64_t k, float *out);

#endif
