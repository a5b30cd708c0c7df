/* nn_impl.h - what the files of the learned rankers share: the workspace,
 * the small dense kernels, and the passes that nn.c dispatches to.
 * Internal to model/nn*.c: include it nowhere else (the public interface
 * is nn.h).
 *
 *   nn.c          dimensions, parameters, the workspace, the public entry points
 *   nn_encoder.c  the encoder, forward and backward
 *   nn_layout.c   the layout head: per-entry slot caches, the memo of node
 *                 terms, forward and backward
 *   nn_tile.c     the tile head, forward and backward
 *   nn_loss.c     the ranking losses (pairwise hinge, ListMLE)
 *
 * Notation in comments: for y = W^T x with W input-major (in x out),
 *   dx = W dy,  dW += x dy^T.
 * Everything is float; losses are accumulated in double.
 */
#ifndef HS_NN_IMPL_H
#define HS_NN_IMPL_H

/* The dense kernels below are most of the run time.  At -O2, GCC only
 * vectorizes loops whose trip count it can see; its dynamic cost model
 * vectorizes these (h and r are runtime widths) and makes training and
 * scoring about 1.7x faster.  Clang vectorizes them at -O2 anyway.  The
 * files that use the kernels include this header first, so the pragma
 * covers every function in them. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include <stddef.h>
#include <stdint.h>

#include "model/nn.h"

/* Layout scoring computes per-entry caches for at most this many entries at
 * a time (each holds 4 vectors of width h): 64 MiB at h = 64. */
#define SLOT_BUDGET 65536

struct nn_ws {
	/* Encoder: H[0..L] node states, AO/AU/RL[1..L] operand and user means
	 * and relu outputs; DA/DB gradient buffers. */
	size_t cap_nh;
	float *H[NN_MAX_LAYERS + 1], *AO[NN_MAX_LAYERS + 1], *AU[NN_MAX_LAYERS + 1],
		*RL[NN_MAX_LAYERS + 1];
	float *DA, *DB;
	/* Layout caches. */
	size_t cap_entries;
	int32_t *slot;        /* [n_entries] slot or -1 */
	size_t cap_slots;
	int32_t *slot_entry;  /* [slots] */
	float *Z, *P, *Q, *U, *dZ, *dP, *dQ, *dU;
	float *RZ;            /* [slots * r] br + R^T z, so a config adds R^T relu(pre) */
	size_t cap_k;
	float *base, *dbase;  /* [K * h] */
	/* Per-config scratch. */
	size_t cap_cfg;
	double *s, *ds, *y, *raw;
	int64_t *cfg;
	float vec[8][1024];   /* small vectors of width <= h or r */
};

/* Grow the workspace for an encoder pass over nh = nodes * h floats, for
 * `slots` layout entries (and the prep's entries and configurable nodes),
 * for n configs of a batch.  0, or -1 when out of memory. */
int nn_ws_encoder(nn_ws *ws, size_t nh, int layers);
int nn_ws_layout(nn_ws *ws, const prep *p, size_t slots, int h, int r);
int nn_ws_configs(nn_ws *ws, size_t n);

/* ---- small dense kernels ------------------------------------------------------ */
/* y[o] += sum_i x[i] W[i, o] */
static inline void mv_acc(float *restrict y, const float *restrict W, const float *restrict x, int in,
		   int out)
{
	for (int i = 0; i < in; i++) {
		float xi = x[i];
		const float *w = W + (size_t)i * (size_t)out;

		if (xi == 0)
			continue;
		for (int o = 0; o < out; o++)
			y[o] += xi * w[o];
	}
}

/* dx[i] += sum_o W[i, o] dy[o] */
static inline void mvt_acc(float *restrict dx, const float *restrict W, const float *restrict dy, int in,
		    int out)
{
	for (int i = 0; i < in; i++) {
		const float *w = W + (size_t)i * (size_t)out;
		float s = 0;

		for (int o = 0; o < out; o++)
			s += w[o] * dy[o];
		dx[i] += s;
	}
}

/* dW[i, o] += x[i] dy[o] */
static inline void outer_acc(float *restrict dW, const float *restrict x, const float *restrict dy,
		      int in, int out)
{
	for (int i = 0; i < in; i++) {
		float xi = x[i];
		float *w = dW + (size_t)i * (size_t)out;

		if (xi == 0)
			continue;
		for (int o = 0; o < out; o++)
			w[o] += xi * dy[o];
	}
}

static inline void axpy(float *restrict y, float a, const float *restrict x, int n)
{
	for (int i = 0; i < n; i++)
		y[i] += a * x[i];
}

static inline void relu(float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] < 0)
			v[i] = 0;
}

static inline float dotf(const float *a, const float *b, int n)
{
	float s = 0;

	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

static inline int all_zero(const float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] != 0)
			return 0;
	return 1;
}

/* ---- the passes ---------------------------------------------------------------- */

/* Encoder forward into ws->H[0..L] (nn_encoder.c); -1 when out of memory. */
int nn_encode(const nn_head *hd, const prep *p, nn_ws *ws);
/* Backward through the encoder; ws->DA holds d loss / d H[L] on entry (it
 * is clobbered).  Adds to g[o.total]. */
void nn_encode_back(const nn_head *hd, const prep *p, nn_ws *ws, float *g);

/* Layout head (nn_layout.c): scores of configs cfgs[0..n) into out; the
 * node terms of one config; the loss and gradient of the batch whose
 * configs and runtimes are in ws->cfg[n], ws->y[n] (NAN when out of memory). */
int nn_layout_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n,
		    double *out, nn_ws *ws);
int nn_layout_node_scores(const nn_head *hd, const prep *p, int64_t config, double *out,
			  nn_ws *ws);
double nn_layout_loss_grad(const nn_head *hd, const prep *p, int64_t n, int loss, float *grad,
			   nn_ws *ws);

/* The prior on a batch (nn.c): nn_prior_apply turns ws->s[n] (the heads'
 * scores of the configs ws->cfg[n]) into totals, keeping the scores in
 * ws->raw; nn_prior_back takes d loss / d total in ws->ds, adds the
 * gradients of pw and gate to g, and leaves d loss / d score in ws->ds. */
void nn_prior_apply(const nn_head *hd, const prep *p, int64_t n, nn_ws *ws);
void nn_prior_back(const nn_head *hd, const prep *p, int64_t n, nn_ws *ws, float *g);

/* Tile head (nn_tile.c): the same for tile configs. */
int nn_tile_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n,
		  double *out, nn_ws *ws);
double nn_tile_loss_grad(const nn_head *hd, const prep *p, int64_t n, int loss, float *grad,
			 nn_ws *ws);

#endif
