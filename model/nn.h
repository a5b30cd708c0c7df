/* nn.h - the learned rankers: a GraphSAGE-style encoder and two heads,
 * forward and hand-written backward passes.
 *
 * Encoder (config-independent, once per graph and parameter state), on the
 * prep's encoder graph with inputs x_v (standardized t(node features)):
 *   h0_v = relu(Win^T [x_v ; E[op_v]] + bin)
 *   hl_v = h(l-1)_v + relu(Ws^T h(l-1)_v + Wo^T mean_{operands u} h(l-1)_u
 *                          + Wu^T mean_{users u} h(l-1)_u + bl)      l = 1..L
 *
 * Layout head, per config c, for each configurable node k with entry e
 * (its distinct config row) and encoder embedding emb_k = hL at k:
 *   z_e   = relu(Ae^T emb_k + Ac^T cfeat_e + b1)           cached per entry
 *   pre_k = Bs^T z_e + mean_{j in N_op(k)} Bo^T z_{e_j}
 *           + mean_{j in N_us(k)} Bu^T z_{e_j} + Be^T edge_k(c) + b2
 *   m_k   = z_e + relu(pre_k)
 *   s_k   = w^T relu(R^T m_k + br)
 *   score(c) = sum_k s_k       (lower = predicted faster)
 * Bs^T z, Bo^T z and Bu^T z are cached per entry too, so a config costs
 * O(K * (deg * H + H * R)) on top of the per-graph work.
 *
 * Tile head, per config c with standardized t(config_feat) u_c:
 *   g = mean_v hL_v ;  a = relu(Tg^T g + Tc^T u_c + bt)
 *   score(c) = wt^T relu(T2^T a + b2t)
 *
 * On top of either head, the analytic estimate as the base (prep.prior:
 * z_c, its standardized log, 0 when the prep has none):
 *   total(c) = pw * z_c + gate * score(c)
 * pw is trained with the rest (no weight decay); gate is not trained:
 * train.c sets it to a value in {1, 1/2, 1/4, 0} chosen on graphs the
 * correction did not train on (train.h), so a correction that does not
 * carry over is dropped and the model ranks as the estimate does.  The heads'
 * own terms (nn_node_scores) are the correction before the gate.
 *
 * Matrices are stored input-major: W[i * out + o].
 *
 * Ownership: nn_head_new() returns a head freed by nn_head_free();
 * nn_ws_new() a workspace freed by nn_ws_free().  A workspace serves one
 * thread at a time; a head is read-only while scoring.
 */
#ifndef HS_NN_H
#define HS_NN_H

#include <stddef.h>
#include <stdint.h>

#include "model/prep.h"

#define NN_MAX_LAYERS 4
#define NN_OPCODES 121 /* HLO_MAX_OPCODE + 1 */

typedef struct nn_dims {
	int kind;     /* HS_KIND_LAYOUT or HS_KIND_TILE */
	int fin;      /* node feature width */
	int de;       /* opcode embedding width */
	int h;        /* hidden width */
	int layers;   /* encoder layers, 1..NN_MAX_LAYERS (layout: pruning radius) */
	int r;        /* readout width */
	int cfg_hops; /* layout: reach of the links between configurable nodes */
	int ncfw;     /* layout config width (18) */
	int ccols;    /* layout config columns, prep_ccols(ncfw) */
	int ctw;      /* tile config columns: config_feat width (24) + PREP_TILE_EXTRA */
} nn_dims;

/* Offsets of every tensor in theta. */
typedef struct nn_off {
	size_t opemb, win, bin;
	size_t ws[NN_MAX_LAYERS], wo[NN_MAX_LAYERS], wu[NN_MAX_LAYERS], bl[NN_MAX_LAYERS];
	size_t ae, ac, b1, bs, bo, bu, be, b2, rr, br, w;  /* layout */
	size_t tg, tc, bt, t2, b2t, wt;                     /* tile */
	size_t pw, gate;                                    /* the prior's weight, the correction's gate */
	size_t total;
} nn_off;

typedef struct nn_head {
	nn_dims d;
	nn_off o;
	float *theta;         /* [o.total] */
	float *mean, *sd;     /* [d.fin] node input statistics */
	float *cmean, *csd;   /* [d.ctw] tile config statistics (tile only) */
} nn_head;

/* Checks dimensions (returns a message naming the bad one, or NULL). */
const char *nn_dims_check(const nn_dims *d);
void nn_offsets(const nn_dims *d, nn_off *o);

/* New head with deterministic initial weights for `seed`; statistics are
 * set to mean 0, sd 1.  NULL when out of memory. */
nn_head *nn_head_new(const nn_dims *d, uint64_t seed);
void nn_head_free(nn_head *hd);

typedef struct nn_ws nn_ws;
nn_ws *nn_ws_new(void);
void nn_ws_free(nn_ws *ws);

/* Scores configs cfgs[0..n) of a standardized prep (lower = faster): the
 * totals, prior included.  Returns 0, or -1 when out of memory. */
int nn_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n,
	     double *out, nn_ws *ws);

/* Per-configurable-node terms s_k of one layout config (out[p->K]); they
 * sum to the config's score before the prior and the gate. */
int nn_node_scores(const nn_head *hd, const prep *p, int64_t config, double *out,
		   nn_ws *ws);

enum nn_loss { NN_LOSS_HINGE, NN_LOSS_LISTMLE };

/* Loss over a batch of unique configs uniq[0..n) (indices into
 * p->uniq_rep / p->uniq_runtime) and its gradient, added to grad[o.total].
 * Pairwise hinge: mean over pairs with different runtimes of
 * max(0, 1 - (s_slow - s_fast)).  ListMLE: the negative log-likelihood of
 * the measured order under Plackett-Luce with utilities -s, divided by n.
 * Returns the loss, or NAN when out of memory. */
double nn_loss_grad(const nn_head *hd, const prep *p, const int64_t *uniq, int64_t n,
		    int loss, float *grad, nn_ws *ws);

/* The loss alone on scores s[n] with runtimes y[n]; ds[n] (may be NULL)
 * receives d loss / d s. */
double nn_rank_loss(const double *s, const double *y, int64_t n, int loss, double *ds);

/* The total of a head's score (nn.h, above) for config c of prep p. */
double nn_total(const nn_head *hd, const prep *p, int64_t c, double score);

#endif
