/* configs.h - the configs of the demo files and the runtime formulas that
 * label them: layout configs (layout.c) and tile configs (tile.c).  Internal
 * to synth/ (and its unit test).  The formulas are stated at the top of
 * layout.c and tile.c and, with the constants below, in DIR/README (the
 * shell suite re-implements them from the README; keep the three in step).
 *
 * Runtimes are nanoseconds.  synth_layout_runtime and synth_tile_runtime give
 * the noiseless value; the files hold round(value * exp(SY_NOISE_SIGMA * z)),
 * z ~ N(0, 1) drawn per config from the file's stream (base/rng.h), or 0 in
 * test splits.
 *
 * Ownership: synth_layout_setup allocates what synth_layout_free frees; the
 * draw functions fill arrays that the matching *_configs_free frees.  A
 * synth_layout or synth_tile points to the graph and kernel info it was set
 * up from: keep those alive while it is used.
 */
#ifndef HS_SYNTH_CONFIGS_H
#define HS_SYNTH_CONFIGS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hash.h"
#include "base/index.h"
#include "synth/builder.h"
#include "synth/plan.h"

/* Shared by both formulas. */
#define SY_BW_BPNS 819.0      /* HBM bandwidth, bytes/ns */
#define SY_MXU_FPNS 123000.0  /* matrix unit, flop/ns */
#define SY_NOISE_SIGMA 0.03

/* Layout formula. */
#define SY_OVH_NS 250.0       /* per-op overhead */
#define SY_FUSE 0.25          /* share of unfused elementwise cost */
#define SY_PEN_CONV_IN 4.0
#define SY_PEN_CONV_OUT 3.0
#define SY_PEN_CONV_K0 2.0
#define SY_PEN_CONV_K1 1.0
#define SY_PEN_DOT_LHS 3.0
#define SY_PEN_DOT_RHS0 2.0
#define SY_PEN_DOT_OUT 1.5
#define SY_PEN_DOT_RHS1 0.5
#define SY_PEN_BITCAST 0.05   /* a layout change that is a bitcast */

/* Tile formula. */
#define SY_STEP_NS 120.0
#define SY_LAUNCH_NS 1500.0
#define SY_VPU_FPNS 4096.0
#define SY_VMEM_BYTES (16.0 * 1024 * 1024)
#define SY_DEFAULT_WS (2.0 * 1024 * 1024) /* the default tiling's working set */
#define SY_MIN_WS (64.0 * 1024)           /* smallest working set searched */

/* ---- layout.c ----------------------------------------------------------- */

/* One configurable node: its candidate rows (output, input and kernel
 * layouts, 6 entries each, minor to major, -1 past the rank or kept). */
typedef struct synth_layout_node {
	int node;
	int nc;
	int8_t (*cand)[18];   /* [nc] */
	int8_t def[2];        /* default (m0, m1) of the output */
} synth_layout_node;

typedef struct synth_layout {
	const synth_graph *g;
	int nk;               /* configurable nodes of the entry computation */
	synth_layout_node *k; /* [nk] */
	int *kof;             /* [g->n]: index into k, or -1 */
	int **users;          /* [nk][nusers[k]]: non-configurable users */
	int *nusers;          /* [nk] */
	double fixed;         /* F: the cost of the other nodes */
} synth_layout;

int synth_layout_setup(const synth_graph *g, synth_layout *p, hs_error *err);
void synth_layout_free(synth_layout *p);
/* rows: one config, nk rows of 18 (-1: the compiler's choice). */
double synth_layout_runtime(const synth_layout *p, const int8_t *rows);

/* The configs of one layout file. */
typedef struct synth_layout_configs {
	int c, nk;
	float *feat;          /* [c * nk * 18] node_config_feat */
	int64_t *ids;         /* [nk] node_config_ids */
	int64_t *runtime;     /* [c] config_runtime */
} synth_layout_configs;

/* Draws up to `want` distinct configs from the stream `seed`.  Default search
 * (random_search 0): the all -1 config once, at a random place, the others
 * change a few nodes from it; random search: every node is set with
 * probability 0.85.  Runtimes are 0 when hide_labels.  `name` is for the
 * message when no config could be drawn. */
int synth_layout_draw(const synth_layout *p, const char *name, uint64_t seed, int want,
		      int random_search, int hide_labels, synth_layout_configs *out,
		      hs_error *err);
void synth_layout_configs_free(synth_layout_configs *c);

/* ---- tile.c ------------------------------------------------------------- */

typedef struct synth_tile {
	int r;                /* output rank */
	int64_t D[SYNTH_MAX_RANK]; /* output dims */
	double W, B;          /* work and bytes per output element */
	int esize;            /* output element size */
	int kin;              /* the tiled contracted kernel dim, or -1 */
	const synth_kernel_info *ki;
} synth_tile;

void synth_tile_setup(const synth_graph *g, const synth_kernel_info *ki, synth_tile *tp);
/* cf: one config's 24 features (kernel_bounds 0-7, output_bounds 8-15). */
double synth_tile_runtime(const synth_tile *tp, const float *cf);

/* The configs of one tile file. */
typedef struct synth_tile_configs {
	int c;
	float *feat;          /* [c * 24] config_feat */
	int64_t *runtime;     /* [c] config_runtime */
	int64_t *normalizers; /* [c] config_runtime_normalizers */
} synth_tile_configs;

/* Draws up to `want` distinct configs from the stream `seed`; config 0 is the
 * compiler's default tiling.  Runtimes 0 and normalizers 1 when hide_labels. */
int synth_tile_draw(const synth_tile *tp, uint64_t seed, int want, int hide_labels,
		    synth_tile_configs *out, hs_error *err);
void synth_tile_configs_free(synth_tile_configs *c);

/* ---- a set of drawn configs, to keep them distinct ---------------------- */

/* The configs drawn so far, by their choices: config i is row i of `all`,
 * n choices (int16) per row. */
typedef struct synth_cset {
	hs_index ix;
} synth_cset;

/* Room for `want` configs; -1 when out of memory. */
static inline int synth_cset_init(synth_cset *s, int want)
{
	return hs_index_reserve(&s->ix, (size_t)want);
}

static inline void synth_cset_free(synth_cset *s)
{
	hs_index_free(&s->ix);
}

struct synth_rows {
	const int16_t *all;
	int n;
};

static inline int synth_same_row(const void *ctx, int32_t i, const void *row)
{
	const struct synth_rows *r = ctx;
	return !memcmp(r->all + (size_t)i * (size_t)r->n, row, sizeof(int16_t) * (size_t)r->n);
}

/* Adds row i of `all` unless an equal row is in (at most `want` rows are
 * added); 1 if it was new. */
static inline int synth_cset_add(synth_cset *s, const int16_t *all, int n, int i)
{
	const int16_t *c = all + (size_t)i * (size_t)n;
	uint32_t h = (uint32_t)hs_fnv1a_bytes(c, sizeof *c * (size_t)n, HS_FNV_BASIS);
	return hs_index_put(&s->ix, h, i, synth_same_row, &(struct synth_rows){all, n}, c) == i;
}

#endif
