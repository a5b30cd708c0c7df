/* nn.c - forward and backward passes of the encoder and both heads.
 *
 * Notation in comments: for y = W^T x with W input-major (in x out),
 *   dx = W dy,  dW += x dy^T.
 * Everything is float; losses are accumulated in double.
 */
#include "model/nn.h"

/* The dense kernels below are most of the run time.  At -O2, GCC only
 * vectorizes loops whose trip count it can see; its dynamic cost model
 * vectorizes these (h and r are runtime widths) and makes training and
 * scoring about 1.7x faster.  Clang vectorizes them at -O2 anyway. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loader/graph.h"
#include "model/rng.h"

/* Layout scoring computes per-entry caches for at most this many entries at
 * a time (each holds 4 vectors of width h): 64 MiB at h = 64. */
#define SLOT_BUDGET 65536

/* ---- small dense kernels ------------------------------------------------------ */

/* y[o] += sum_i x[i] W[i, o] */
static void mv_acc(float *restrict y, const float *restrict W, const float *restrict x, int in,
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
static void mvt_acc(float *restrict dx, const float *restrict W, const float *restrict dy, int in,
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
static void outer_acc(float *restrict dW, const float *restrict x, const float *restrict dy,
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

static void axpy(float *restrict y, float a, const float *restrict x, int n)
{
	for (int i = 0; i < n; i++)
		y[i] += a * x[i];
}

static void relu(float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] < 0)
			v[i] = 0;
}

static float dotf(const float *a, const float *b, int n)
{
	float s = 0;

	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

static int all_zero(const float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] != 0)
			return 0;
	return 1;
}

/* ---- dimensions and parameters ------------------------------------------------ */

const char *nn_dims_check(const nn_dims *d)
{
	if (d->kind != HS_KIND_LAYOUT && d->kind != HS_KIND_TILE)
		return "kind";
	if (d->fin < 1 || d->fin > 4096)
		return "node feature width";
	if (d->de < 1 || d->de > 256)
		return "opcode embedding width";
	if (d->h < 1 || d->h > 1024)
		return "hidden width";
	if (d->layers < 1 || d->layers > NN_MAX_LAYERS)
		return "encoder layers";
	if (d->r < 1 || d->r > 1024)
		return "readout width";
	if (d->kind == HS_KIND_LAYOUT) {
		if (d->ncfw < 1 || d->ncfw > 256 || d->ccols != prep_ccols(d->ncfw))
			return "layout config width";
		if (d->cfg_hops < 0 || d->cfg_hops > 16)
			return "config hops";
	} else if (d->ctw < 0 || d->ctw > 4096) {
		return "tile config width";
	}
	return NULL;
}

void nn_offsets(const nn_dims *d, nn_off *o)
{
	size_t t = 0, h = (size_t)d->h, r = (size_t)d->r;

	memset(o, 0, sizeof *o);
#define TAKE(field, count) (o->field = t, t += (count))
	TAKE(opemb, (size_t)NN_OPCODES * (size_t)d->de);
	TAKE(win, ((size_t)d->fin + (size_t)d->de) * h);
	TAKE(bin, h);
	for (int l = 0; l < d->layers; l++) {
		TAKE(ws[l], h * h);
		TAKE(wo[l], h * h);
		TAKE(wu[l], h * h);
		TAKE(bl[l], h);
	}
	if (d->kind == HS_KIND_LAYOUT) {
		TAKE(ae, h * h);
		TAKE(ac, (size_t)d->ccols * h);
		TAKE(b1, h);
		TAKE(bs, h * h);
		TAKE(bo, h * h);
		TAKE(bu, h * h);
		TAKE(be, (size_t)PREP_EDGE * h);
		TAKE(b2, h);
		TAKE(rr, h * r);
		TAKE(br, r);
		TAKE(w, r);
	} else {
		TAKE(tg, h * h);
		TAKE(tc, (size_t)d->ctw * h);
		TAKE(bt, h);
		TAKE(t2, h * r);
		TAKE(b2t, r);
		TAKE(wt, r);
	}
#undef TAKE
	o->total = t;
}

static void init_uniform(float *w, size_t n, double limit, rng *g)
{
	for (size_t i = 0; i < n; i++)
		w[i] = (float)((2 * rng_unit(g) - 1) * limit);
}

nn_head *nn_head_new(const nn_dims *d, uint64_t seed)
{
	nn_head *hd = calloc(1, sizeof *hd);
	rng g = rng_seed(seed);
	size_t h = (size_t)d->h, r = (size_t)d->r;
	double fin = d->fin + d->de;

	if (!hd)
		return NULL;
	hd->d = *d;
	nn_offsets(d, &hd->o);
	hd->theta = calloc(hd->o.total, sizeof *hd->theta);
	hd->mean = calloc((size_t)d->fin, sizeof *hd->mean);
	hd->sd = malloc((size_t)d->fin * sizeof *hd->sd);
	if (d->kind == HS_KIND_TILE) {
		hd->cmean = calloc((size_t)(d->ctw ? d->ctw : 1), sizeof *hd->cmean);
		hd->csd = malloc((size_t)(d->ctw ? d->ctw : 1) * sizeof *hd->csd);
	}
	if (!hd->theta || !hd->mean || !hd->sd ||
	    (d->kind == HS_KIND_TILE && (!hd->cmean || !hd->csd))) {
		nn_head_free(hd);
		return NULL;
	}
	for (int j = 0; j < d->fin; j++)
		hd->sd[j] = 1;
	for (int j = 0; d->kind == HS_KIND_TILE && j < d->ctw; j++)
		hd->csd[j] = 1;

	/* He-uniform for ReLU layers; residual branches and the last layer start
	 * smaller so the initial scores stay near zero. */
	init_uniform(hd->theta + hd->o.opemb, (size_t)NN_OPCODES * (size_t)d->de, 1.0, &g);
	init_uniform(hd->theta + hd->o.win, (size_t)fin * h, sqrt(6.0 / fin), &g);
	for (int l = 0; l < d->layers; l++) {
		double lim = 0.5 * sqrt(6.0 / (3.0 * (double)h));

		init_uniform(hd->theta + hd->o.ws[l], h * h, lim, &g);
		init_uniform(hd->theta + hd->o.wo[l], h * h, lim, &g);
		init_uniform(hd->theta + hd->o.wu[l], h * h, lim, &g);
	}
	if (d->kind == HS_KIND_LAYOUT) {
		double cin = (double)h + (double)d->ncfw + PREP_DENSE;

		init_uniform(hd->theta + hd->o.ae, h * h, sqrt(6.0 / cin), &g);
		init_uniform(hd->theta + hd->o.ac, (size_t)d->ccols * h, sqrt(6.0 / cin), &g);
		init_uniform(hd->theta + hd->o.bs, h * h, 0.5 * sqrt(2.0 / (double)h), &g);
		init_uniform(hd->theta + hd->o.bo, h * h, 0.5 * sqrt(2.0 / (double)h), &g);
		init_uniform(hd->theta + hd->o.bu, h * h, 0.5 * sqrt(2.0 / (double)h), &g);
		init_uniform(hd->theta + hd->o.be, (size_t)PREP_EDGE * h, 0.5, &g);
		init_uniform(hd->theta + hd->o.rr, h * r, sqrt(6.0 / (double)h), &g);
		init_uniform(hd->theta + hd->o.w, r, sqrt(3.0 / (double)r), &g);
	} else {
		double cin = (double)h + (double)d->ctw;

		init_uniform(hd->theta + hd->o.tg, h * h, sqrt(6.0 / cin), &g);
		init_uniform(hd->theta + hd->o.tc, (size_t)d->ctw * h, sqrt(6.0 / cin), &g);
		init_uniform(hd->theta + hd->o.t2, h * r, sqrt(6.0 / (double)h), &g);
		init_uniform(hd->theta + hd->o.wt, r, sqrt(3.0 / (double)r), &g);
	}
	return hd;
}

void nn_head_free(nn_head *hd)
{
	if (!hd)
		return;
	free(hd->theta);
	free(hd->mean);
	free(hd->sd);
	free(hd->cmean);
	free(hd->csd);
	free(hd);
}

/* ---- workspace ---------------------------------------------------------------------- */

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
	double *s, *ds, *y;
	int64_t *cfg;
	float vec[8][1024];   /* small vectors of width <= h or r */
};

nn_ws *nn_ws_new(void)
{
	return calloc(1, sizeof(nn_ws));
}

void nn_ws_free(nn_ws *ws)
{
	if (!ws)
		return;
	for (int l = 0; l <= NN_MAX_LAYERS; l++) {
		free(ws->H[l]);
		free(ws->AO[l]);
		free(ws->AU[l]);
		free(ws->RL[l]);
	}
	free(ws->DA);
	free(ws->DB);
	free(ws->slot);
	free(ws->slot_entry);
	free(ws->Z);
	free(ws->P);
	free(ws->Q);
	free(ws->U);
	free(ws->dZ);
	free(ws->dP);
	free(ws->dQ);
	free(ws->dU);
	free(ws->RZ);
	free(ws->base);
	free(ws->dbase);
	free(ws->s);
	free(ws->ds);
	free(ws->y);
	free(ws->cfg);
	free(ws);
}

static int grow_f(float **p, size_t n)
{
	float *q = realloc(*p, (n ? n : 1) * sizeof *q);

	if (!q)
		return -1;
	*p = q;
	return 0;
}

static int ws_encoder(nn_ws *ws, size_t nh, int layers)
{
	if (nh <= ws->cap_nh && ws->H[layers])
		return 0;
	for (int l = 0; l <= layers; l++)
		if (grow_f(&ws->H[l], nh) || grow_f(&ws->AO[l], nh) || grow_f(&ws->AU[l], nh) ||
		    grow_f(&ws->RL[l], nh))
			return -1;
	if (grow_f(&ws->DA, nh) || grow_f(&ws->DB, nh))
		return -1;
	ws->cap_nh = nh;
	return 0;
}

static int ws_layout(nn_ws *ws, const prep *p, size_t slots, int h, int r)
{
	size_t sh = slots * (size_t)h, kh = (size_t)p->K * (size_t)h;

	if ((size_t)p->n_entries > ws->cap_entries || !ws->slot) {
		int32_t *s = realloc(ws->slot, (size_t)(p->n_entries ? p->n_entries : 1) * sizeof *s);

		if (!s)
			return -1;
		ws->slot = s;
		ws->cap_entries = (size_t)p->n_entries;
	}
	for (int64_t e = 0; e < p->n_entries; e++)
		ws->slot[e] = -1;
	if (slots > ws->cap_slots || !ws->slot_entry) {
		int32_t *s = realloc(ws->slot_entry, (slots ? slots : 1) * sizeof *s);

		if (!s)
			return -1;
		ws->slot_entry = s;
		if (grow_f(&ws->Z, sh) || grow_f(&ws->P, sh) || grow_f(&ws->Q, sh) ||
		    grow_f(&ws->U, sh) || grow_f(&ws->dZ, sh) || grow_f(&ws->dP, sh) ||
		    grow_f(&ws->dQ, sh) || grow_f(&ws->dU, sh) || grow_f(&ws->RZ, slots * (size_t)r))
			return -1;
		ws->cap_slots = slots;
	}
	if ((size_t)p->K > ws->cap_k || !ws->base) {
		if (grow_f(&ws->base, kh) || grow_f(&ws->dbase, kh))
			return -1;
		ws->cap_k = (size_t)p->K;
	}
	return 0;
}

static int ws_configs(nn_ws *ws, size_t n)
{
	if (n <= ws->cap_cfg && ws->s)
		return 0;
	double *a = realloc(ws->s, (n ? n : 1) * sizeof *a);
	if (!a)
		return -1;
	ws->s = a;
	a = realloc(ws->ds, (n ? n : 1) * sizeof *a);
	if (!a)
		return -1;
	ws->ds = a;
	a = realloc(ws->y, (n ? n : 1) * sizeof *a);
	if (!a)
		return -1;
	ws->y = a;
	int64_t *c = realloc(ws->cfg, (n ? n : 1) * sizeof *c);
	if (!c)
		return -1;
	ws->cfg = c;
	ws->cap_cfg = n;
	return 0;
}

/* ---- encoder --------------------------------------------------------------------- */

static int encode(const nn_head *hd, const prep *p, nn_ws *ws)
{
	const nn_dims *d = &hd->d;
	const float *th = hd->theta;
	int h = d->h, L = d->layers, fin = d->fin;
	size_t n = (size_t)p->n;

	if (ws_encoder(ws, n * (size_t)h, L) < 0)
		return -1;
	for (size_t v = 0; v < n; v++) {
		float *t = ws->H[0] + v * (size_t)h;

		memcpy(t, th + hd->o.bin, (size_t)h * sizeof *t);
		mv_acc(t, th + hd->o.win, p->x + v * (size_t)fin, fin, h);
		mv_acc(t, th + hd->o.win + (size_t)fin * (size_t)h,
		       th + hd->o.opemb + (size_t)p->op[v] * (size_t)d->de, d->de, h);
		relu(t, h);
	}
	for (int l = 1; l <= L; l++) {
		const float *Hp = ws->H[l - 1];

		for (size_t v = 0; v < n; v++) {
			float *ao = ws->AO[l] + v * (size_t)h, *au = ws->AU[l] + v * (size_t)h;
			float *rl = ws->RL[l] + v * (size_t)h, *hn = ws->H[l] + v * (size_t)h;
			int64_t a = p->op_off[v], b = p->op_off[v + 1];

			memset(ao, 0, (size_t)h * sizeof *ao);
			memset(au, 0, (size_t)h * sizeof *au);
			for (int64_t e = a; e < b; e++)
				axpy(ao, 1.0f / (float)(b - a), Hp + (size_t)p->op_idx[e] * (size_t)h, h);
			a = p->us_off[v];
			b = p->us_off[v + 1];
			for (int64_t e = a; e < b; e++)
				axpy(au, 1.0f / (float)(b - a), Hp + (size_t)p->us_idx[e] * (size_t)h, h);
			memcpy(rl, th + hd->o.bl[l - 1], (size_t)h * sizeof *rl);
			mv_acc(rl, th + hd->o.ws[l - 1], Hp + v * (size_t)h, h, h);
			mv_acc(rl, th + hd->o.wo[l - 1], ao, h, h);
			mv_acc(rl, th + hd->o.wu[l - 1], au, h, h);
			relu(rl, h);
			for (int i = 0; i < h; i++)
				hn[i] = Hp[v * (size_t)h + (size_t)i] + rl[i];
		}
	}
	return 0;
}

/* Backward through the encoder; ws->DA holds d loss / d H[L] on entry (it
 * is clobbered). */
static void encode_back(const nn_head *hd, const prep *p, nn_ws *ws, float *g)
{
	const nn_dims *d = &hd->d;
	const float *th = hd->theta;
	int h = d->h, L = d->layers, fin = d->fin;
	size_t n = (size_t)p->n;
	float *dcur = ws->DA, *dprev = ws->DB;
	float *dr = ws->vec[0], *tmp = ws->vec[1];

	for (int l = L; l >= 1; l--) {
		const float *Hp = ws->H[l - 1];

		memset(dprev, 0, n * (size_t)h * sizeof *dprev);
		for (size_t v = 0; v < n; v++) {
			const float *dh = dcur + v * (size_t)h, *rl = ws->RL[l] + v * (size_t)h;
			int64_t a, b;

			if (all_zero(dh, h))
				continue;
			axpy(dprev + v * (size_t)h, 1, dh, h);
			for (int i = 0; i < h; i++)
				dr[i] = rl[i] > 0 ? dh[i] : 0;
			if (all_zero(dr, h))
				continue;
			axpy(g + hd->o.bl[l - 1], 1, dr, h);
			outer_acc(g + hd->o.ws[l - 1], Hp + v * (size_t)h, dr, h, h);
			outer_acc(g + hd->o.wo[l - 1], ws->AO[l] + v * (size_t)h, dr, h, h);
			outer_acc(g + hd->o.wu[l - 1], ws->AU[l] + v * (size_t)h, dr, h, h);
			mvt_acc(dprev + v * (size_t)h, th + hd->o.ws[l - 1], dr, h, h);
			a = p->op_off[v];
			b = p->op_off[v + 1];
			if (b > a) {
				memset(tmp, 0, (size_t)h * sizeof *tmp);
				mvt_acc(tmp, th + hd->o.wo[l - 1], dr, h, h);
				for (int64_t e = a; e < b; e++)
					axpy(dprev + (size_t)p->op_idx[e] * (size_t)h, 1.0f / (float)(b - a), tmp, h);
			}
			a = p->us_off[v];
			b = p->us_off[v + 1];
			if (b > a) {
				memset(tmp, 0, (size_t)h * sizeof *tmp);
				mvt_acc(tmp, th + hd->o.wu[l - 1], dr, h, h);
				for (int64_t e = a; e < b; e++)
					axpy(dprev + (size_t)p->us_idx[e] * (size_t)h, 1.0f / (float)(b - a), tmp, h);
			}
		}
		float *t = dcur;
		dcur = dprev;
		dprev = t;
	}
	for (size_t v = 0; v < n; v++) {
		const float *dh = dcur + v * (size_t)h, *h0 = ws->H[0] + v * (size_t)h;
		const float *emb = th + hd->o.opemb + (size_t)p->op[v] * (size_t)d->de;

		if (all_zero(dh, h))
			continue;
		for (int i = 0; i < h; i++)
			dr[i] = h0[i] > 0 ? dh[i] : 0;
		axpy(g + hd->o.bin, 1, dr, h);
		outer_acc(g + hd->o.win, p->x + v * (size_t)fin, dr, fin, h);
		outer_acc(g + hd->o.win + (size_t)fin * (size_t)h, emb, dr, d->de, h);
		mvt_acc(g + hd->o.opemb + (size_t)p->op[v] * (size_t)d->de,
			th + hd->o.win + (size_t)fin * (size_t)h, dr, d->de, h);
	}
}

/* ---- layout head ---------------------------------------------------------------- */

/* base_k = Ae^T emb_k + b1 for every configurable node. */
static void layout_base(const nn_head *hd, const prep *p, nn_ws *ws)
{
	int h = hd->d.h, L = hd->d.layers;

	for (int64_t k = 0; k < p->K; k++) {
		float *b = ws->base + (size_t)k * (size_t)h;

		memcpy(b, hd->theta + hd->o.b1, (size_t)h * sizeof *b);
		mv_acc(b, hd->theta + hd->o.ae, ws->H[L] + (size_t)p->cfg_enc[k] * (size_t)h, h, h);
	}
}

/* Gives every entry of configs cfgs[0..n) a slot, starting at *used;
 * returns the new count, stopping early (before the config that would
 * overflow) when `limit` slots are reached: *taken receives how many
 * configs got all their slots. */
static size_t assign_slots(const prep *p, nn_ws *ws, const int64_t *cfgs, int64_t n, size_t used,
			   size_t limit, int64_t *taken)
{
	int64_t i;

	for (i = 0; i < n; i++) {
		const int32_t *row = p->rows + (size_t)cfgs[i] * (size_t)p->K;
		size_t need = 0;

		for (int64_t k = 0; k < p->K; k++)
			need += ws->slot[row[k]] < 0;
		if (used + need > limit && i > 0)
			break;
		for (int64_t k = 0; k < p->K; k++)
			if (ws->slot[row[k]] < 0) {
				ws->slot[row[k]] = (int32_t)used;
				ws->slot_entry[used++] = row[k];
			}
	}
	*taken = i;
	return used;
}

/* Z, P, Q, U for slots [from, to). */
static void compute_slots(const nn_head *hd, const prep *p, nn_ws *ws, size_t from, size_t to)
{
	int h = hd->d.h, W = p->ncf_width;
	const float *th = hd->theta;
	int dense = p->ccols > PREP_BUCKETS * W;

	for (size_t s = from; s < to; s++) {
		int32_t e = ws->slot_entry[s];
		int32_t k = p->entry_node[e];
		float *z = ws->Z + s * (size_t)h;
		const int16_t *hot = p->entry_hot + (size_t)e * (size_t)W;

		memcpy(z, ws->base + (size_t)k * (size_t)h, (size_t)h * sizeof *z);
		for (int j = 0; j < W; j++)
			axpy(z, 1, th + hd->o.ac + (size_t)hot[j] * (size_t)h, h);
		if (dense)
			mv_acc(z, th + hd->o.ac + (size_t)(PREP_BUCKETS * W) * (size_t)h,
			       p->entry_dense + (size_t)e * PREP_DENSE, PREP_DENSE, h);
		relu(z, h);
		float *P = ws->P + s * (size_t)h, *Q = ws->Q + s * (size_t)h, *U = ws->U + s * (size_t)h;
		memset(P, 0, (size_t)h * sizeof *P);
		memset(Q, 0, (size_t)h * sizeof *Q);
		memset(U, 0, (size_t)h * sizeof *U);
		mv_acc(P, th + hd->o.bs, z, h, h);
		mv_acc(Q, th + hd->o.bo, z, h, h);
		mv_acc(U, th + hd->o.bu, z, h, h);
		float *rz = ws->RZ + s * (size_t)hd->d.r;
		memcpy(rz, th + hd->o.br, (size_t)hd->d.r * sizeof *rz);
		mv_acc(rz, th + hd->o.rr, z, h, hd->d.r);
	}
}

/* relu(pre) (h), m (h), q (r) for node k of a config; returns s_k. */
static float node_forward(const nn_head *hd, const prep *p, const nn_ws *ws, const int32_t *row,
			  int64_t k, float *pre, float *m, float *q, float *ef)
{
	int h = hd->d.h, r = hd->d.r;
	const float *th = hd->theta;
	int32_t s = ws->slot[row[k]];
	int64_t a, b;

	memcpy(pre, th + hd->o.b2, (size_t)h * sizeof *pre);
	axpy(pre, 1, ws->P + (size_t)s * (size_t)h, h);
	a = p->nop_off[k];
	b = p->nop_off[k + 1];
	for (int64_t i = a; i < b; i++)
		axpy(pre, 1.0f / (float)(b - a), ws->Q + (size_t)ws->slot[row[p->nop_idx[i]]] * (size_t)h, h);
	a = p->nus_off[k];
	b = p->nus_off[k + 1];
	for (int64_t i = a; i < b; i++)
		axpy(pre, 1.0f / (float)(b - a), ws->U + (size_t)ws->slot[row[p->nus_idx[i]]] * (size_t)h, h);
	prep_edge_feats(p, row, k, ef);
	mv_acc(pre, th + hd->o.be, ef, PREP_EDGE, h);
	const float *z = ws->Z + (size_t)s * (size_t)h;
	/* m = z + relu(pre); R^T m + br = RZ + R^T relu(pre), and relu(pre)
	 * is sparse, which mv_acc exploits. */
	relu(pre, h);
	for (int i = 0; i < h; i++)
		m[i] = z[i] + pre[i];
	memcpy(q, ws->RZ + (size_t)s * (size_t)r, (size_t)r * sizeof *q);
	mv_acc(q, th + hd->o.rr, pre, h, r);
	relu(q, r);
	return dotf(th + hd->o.w, q, r);
}

static double layout_config(const nn_head *hd, const prep *p, nn_ws *ws, int64_t c, double *node_out)
{
	const int32_t *row = p->rows + (size_t)c * (size_t)p->K;
	double score = 0;

	for (int64_t k = 0; k < p->K; k++) {
		float sk = node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);

		score += sk;
		if (node_out)
			node_out[k] = sk;
	}
	return score;
}

static void layout_config_back(const nn_head *hd, const prep *p, nn_ws *ws, int64_t c, double ds,
			       float *g)
{
	const int32_t *row = p->rows + (size_t)c * (size_t)p->K;
	int h = hd->d.h, r = hd->d.r;
	const float *th = hd->theta;
	float *pre = ws->vec[2], *m = ws->vec[3], *q = ws->vec[4], *ef = ws->vec[5];
	float *dq = ws->vec[6], *dm = ws->vec[7];

	for (int64_t k = 0; k < p->K; k++) {
		int32_t s = ws->slot[row[k]];
		int64_t a, b;

		node_forward(hd, p, ws, row, k, pre, m, q, ef);
		axpy(g + hd->o.w, (float)ds, q, r);
		for (int i = 0; i < r; i++)
			dq[i] = q[i] > 0 ? (float)ds * th[hd->o.w + (size_t)i] : 0;
		axpy(g + hd->o.br, 1, dq, r);
		outer_acc(g + hd->o.rr, m, dq, h, r);
		memset(dm, 0, (size_t)h * sizeof *dm);
		mvt_acc(dm, th + hd->o.rr, dq, h, r);
		axpy(ws->dZ + (size_t)s * (size_t)h, 1, dm, h);
		for (int i = 0; i < h; i++)
			dm[i] = pre[i] > 0 ? dm[i] : 0;
		axpy(g + hd->o.b2, 1, dm, h);
		axpy(ws->dP + (size_t)s * (size_t)h, 1, dm, h);
		outer_acc(g + hd->o.be, ef, dm, PREP_EDGE, h);
		a = p->nop_off[k];
		b = p->nop_off[k + 1];
		for (int64_t i = a; i < b; i++)
			axpy(ws->dQ + (size_t)ws->slot[row[p->nop_idx[i]]] * (size_t)h, 1.0f / (float)(b - a), dm, h);
		a = p->nus_off[k];
		b = p->nus_off[k + 1];
		for (int64_t i = a; i < b; i++)
			axpy(ws->dU + (size_t)ws->slot[row[p->nus_idx[i]]] * (size_t)h, 1.0f / (float)(b - a), dm, h);
	}
}

/* From the slot gradients down to the encoder's output gradient ws->DA. */
static void slots_back(const nn_head *hd, const prep *p, nn_ws *ws, size_t used, float *g)
{
	int h = hd->d.h, W = p->ncf_width, L = hd->d.layers;
	const float *th = hd->theta;
	int dense = p->ccols > PREP_BUCKETS * W;
	float *dp1 = ws->vec[0];

	memset(ws->dbase, 0, (size_t)p->K * (size_t)h * sizeof *ws->dbase);
	for (size_t s = 0; s < used; s++) {
		int32_t e = ws->slot_entry[s], k = p->entry_node[e];
		float *dz = ws->dZ + s * (size_t)h;
		const float *z = ws->Z + s * (size_t)h;
		const int16_t *hot = p->entry_hot + (size_t)e * (size_t)W;

		mvt_acc(dz, th + hd->o.bs, ws->dP + s * (size_t)h, h, h);
		mvt_acc(dz, th + hd->o.bo, ws->dQ + s * (size_t)h, h, h);
		mvt_acc(dz, th + hd->o.bu, ws->dU + s * (size_t)h, h, h);
		outer_acc(g + hd->o.bs, z, ws->dP + s * (size_t)h, h, h);
		outer_acc(g + hd->o.bo, z, ws->dQ + s * (size_t)h, h, h);
		outer_acc(g + hd->o.bu, z, ws->dU + s * (size_t)h, h, h);
		for (int i = 0; i < h; i++)
			dp1[i] = z[i] > 0 ? dz[i] : 0;
		if (all_zero(dp1, h))
			continue;
		for (int j = 0; j < W; j++)
			axpy(g + hd->o.ac + (size_t)hot[j] * (size_t)h, 1, dp1, h);
		if (dense)
			outer_acc(g + hd->o.ac + (size_t)(PREP_BUCKETS * W) * (size_t)h,
				  p->entry_dense + (size_t)e * PREP_DENSE, dp1, PREP_DENSE, h);
		axpy(ws->dbase + (size_t)k * (size_t)h, 1, dp1, h);
	}
	memset(ws->DA, 0, (size_t)p->n * (size_t)h * sizeof *ws->DA);
	for (int64_t k = 0; k < p->K; k++) {
		const float *db = ws->dbase + (size_t)k * (size_t)h;
		const float *emb = ws->H[L] + (size_t)p->cfg_enc[k] * (size_t)h;

		axpy(g + hd->o.b1, 1, db, h);
		outer_acc(g + hd->o.ae, emb, db, h, h);
		mvt_acc(ws->DA + (size_t)p->cfg_enc[k] * (size_t)h, th + hd->o.ae, db, h, h);
	}
}

static void reset_slots(nn_ws *ws, size_t used)
{
	for (size_t s = 0; s < used; s++)
		ws->slot[ws->slot_entry[s]] = -1;
}

/* Memo of node terms: s_k depends only on the entries of k, N_op(k) and
 * N_us(k) in the config (the key), so configs sharing a node's
 * neighbourhood share its term.  Open addressing over (node, key) with the
 * keys kept in an arena and compared in full.  It stops growing at
 * MEMO_MAX entries (later misses are just computed). */
#define MEMO_MAX ((size_t)1 << 22)

typedef struct memo {
	uint64_t *hash;     /* [cap], 0 = empty */
	int64_t *key;       /* [cap] offset of the key in the arena */
	float *val;         /* [cap] */
	size_t cap, used;
	int32_t *arena;     /* keys: node, then its entries */
	size_t arena_used, arena_cap;
} memo;

static void memo_free(memo *m)
{
	free(m->hash);
	free(m->key);
	free(m->val);
	free(m->arena);
}

static int memo_init(memo *m, size_t expect)
{
	size_t cap = 1024;

	memset(m, 0, sizeof *m);
	if (expect > MEMO_MAX / 4)
		expect = MEMO_MAX / 4;
	while (cap < expect * 2)
		cap <<= 1;
	m->hash = calloc(cap, sizeof *m->hash);
	m->key = malloc(cap * sizeof *m->key);
	m->val = malloc(cap * sizeof *m->val);
	if (!m->hash || !m->key || !m->val) {
		memo_free(m);
		return -1;
	}
	m->cap = cap;
	return 0;
}

/* Doubles the table (up to 2 * MEMO_MAX slots); -1 when it cannot. */
static int memo_grow(memo *m)
{
	size_t cap = m->cap * 2;
	uint64_t *hash;
	int64_t *key;
	float *val;

	if (cap > 2 * MEMO_MAX)
		return -1;
	hash = calloc(cap, sizeof *hash);
	key = malloc(cap * sizeof *key);
	val = malloc(cap * sizeof *val);
	if (!hash || !key || !val) {
		free(hash);
		free(key);
		free(val);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t s;

		if (!m->hash[i])
			continue;
		for (s = m->hash[i] & (cap - 1); hash[s]; s = (s + 1) & (cap - 1))
			;
		hash[s] = m->hash[i];
		key[s] = m->key[i];
		val[s] = m->val[i];
	}
	free(m->hash);
	free(m->key);
	free(m->val);
	m->hash = hash;
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

static uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* The key of node k in a config: k, its entry, its neighbours' entries. */
static size_t node_key(const prep *p, const int32_t *row, int64_t k, int32_t *key)
{
	size_t n = 0;

	key[n++] = (int32_t)k;
	key[n++] = row[k];
	for (int64_t i = p->nop_off[k]; i < p->nop_off[k + 1]; i++)
		key[n++] = row[p->nop_idx[i]];
	for (int64_t i = p->nus_off[k]; i < p->nus_off[k + 1]; i++)
		key[n++] = row[p->nus_idx[i]];
	return n;
}

/* Per node: a node without links keys on its entry alone (a plain array);
 * a linked node uses the memo until it proves useless (after 64 lookups
 * with fewer than 1 hit in 4, random search making its neighbourhoods
 * unique), then is just computed. */
typedef struct memo_node {
	float *by_entry;    /* [n_entries], NAN = not yet (unlinked nodes) */
	int64_t *lookups, *hits;
	uint8_t *off;       /* [K] memo switched off */
} memo_node;

static double layout_config_memo(const nn_head *hd, const prep *p, nn_ws *ws, int64_t c, memo *m,
				 memo_node *mn, int32_t *key)
{
	const int32_t *row = p->rows + (size_t)c * (size_t)p->K;
	double score = 0;

	for (int64_t k = 0; k < p->K; k++) {
		int linked = p->nop_off[k + 1] > p->nop_off[k] || p->nus_off[k + 1] > p->nus_off[k];
		size_t len, slot;
		uint64_t h = 0x12345;
		float sk;

		if (!linked) {
			float *e = &mn->by_entry[row[k]];

			if (isnan(*e))
				*e = node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);
			score += *e;
			continue;
		}
		if (mn->off[k]) {
			score += node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);
			continue;
		}
		len = node_key(p, row, k, key);
		for (size_t i = 0; i < len; i++)
			h = mix64(h, (uint64_t)(uint32_t)key[i]);
		h |= 1;
		for (slot = h & (m->cap - 1); m->hash[slot]; slot = (slot + 1) & (m->cap - 1))
			if (m->hash[slot] == h && !memcmp(m->arena + m->key[slot], key, len * sizeof *key))
				break;
		mn->lookups[k]++;
		if (m->hash[slot]) {
			mn->hits[k]++;
			score += m->val[slot];
			continue;
		}
		if (mn->lookups[k] >= 64 && mn->hits[k] * 4 < mn->lookups[k])
			mn->off[k] = 1;
		sk = node_forward(hd, p, ws, row, k, ws->vec[2], ws->vec[3], ws->vec[4], ws->vec[5]);
		score += sk;
		if (mn->off[k])
			continue;
		if (m->used * 2 >= m->cap) {
			if (memo_grow(m) < 0)
				continue; /* full: no more memoizing */
			for (slot = h & (m->cap - 1); m->hash[slot]; slot = (slot + 1) & (m->cap - 1))
				;
		}
		if (m->arena_used + len > m->arena_cap) {
			size_t cap = m->arena_cap ? m->arena_cap * 2 : 4096;
			int32_t *a;

			while (cap < m->arena_used + len)
				cap *= 2;
			if (!(a = realloc(m->arena, cap * sizeof *a)))
				continue;
			m->arena = a;
			m->arena_cap = cap;
		}
		memcpy(m->arena + m->arena_used, key, len * sizeof *key);
		m->hash[slot] = h;
		m->key[slot] = (int64_t)m->arena_used;
		m->val[slot] = sk;
		m->arena_used += len;
		m->used++;
	}
	return score;
}

static int layout_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n,
			double *out, nn_ws *ws)
{
	size_t limit = SLOT_BUDGET > p->K ? SLOT_BUDGET : (size_t)p->K;
	int64_t maxdeg = 0;
	int32_t *key;
	memo m;

	if ((size_t)p->n_entries < limit)
		limit = (size_t)(p->n_entries ? p->n_entries : 1);
	for (int64_t k = 0; k < p->K; k++) {
		int64_t d = p->nop_off[k + 1] - p->nop_off[k] + p->nus_off[k + 1] - p->nus_off[k];

		maxdeg = d > maxdeg ? d : maxdeg;
	}
	if (encode(hd, p, ws) < 0 || ws_layout(ws, p, limit, hd->d.h, hd->d.r) < 0)
		return -1;
	memo_node mn = {0};

	key = malloc((size_t)(maxdeg + 2) * sizeof *key);
	mn.by_entry = malloc((size_t)(p->n_entries ? p->n_entries : 1) * sizeof *mn.by_entry);
	mn.lookups = calloc((size_t)(p->K ? p->K : 1), sizeof *mn.lookups);
	mn.hits = calloc((size_t)(p->K ? p->K : 1), sizeof *mn.hits);
	mn.off = calloc((size_t)(p->K ? p->K : 1), 1);
	if (!key || !mn.by_entry || !mn.lookups || !mn.hits || !mn.off || memo_init(&m, (size_t)p->n_entries) < 0) {
		free(key);
		free(mn.by_entry);
		free(mn.lookups);
		free(mn.hits);
		free(mn.off);
		return -1;
	}
	for (int64_t e = 0; e < p->n_entries; e++)
		mn.by_entry[e] = NAN;
	layout_base(hd, p, ws);
	for (int64_t i = 0; i < n;) {
		int64_t taken;
		size_t used = assign_slots(p, ws, cfgs + i, n - i, 0, limit, &taken);

		compute_slots(hd, p, ws, 0, used);
		for (int64_t j = 0; j < taken; j++)
			out[i + j] = layout_config_memo(hd, p, ws, cfgs[i + j], &m, &mn, key);
		reset_slots(ws, used);
		i += taken;
	}
	memo_free(&m);
	free(key);
	free(mn.by_entry);
	free(mn.lookups);
	free(mn.hits);
	free(mn.off);
	return 0;
}

/* ---- tile head --------------------------------------------------------------------- */

/* g (vec[0]) = mean of the last layer; gt (vec[1]) = Tg^T g + bt. */
static void tile_graph(const nn_head *hd, const prep *p, nn_ws *ws)
{
	int h = hd->d.h, L = hd->d.layers;
	float *gm = ws->vec[0], *gt = ws->vec[1];

	memset(gm, 0, (size_t)h * sizeof *gm);
	for (int64_t v = 0; v < p->n; v++)
		axpy(gm, 1.0f / (float)p->n, ws->H[L] + (size_t)v * (size_t)h, h);
	memcpy(gt, hd->theta + hd->o.bt, (size_t)h * sizeof *gt);
	mv_acc(gt, hd->theta + hd->o.tg, gm, h, h);
}

/* a (vec[2]), b (vec[3]); returns the score. */
static float tile_config(const nn_head *hd, const prep *p, nn_ws *ws, int64_t c)
{
	int h = hd->d.h, r = hd->d.r, cw = hd->d.ctw;
	float *a = ws->vec[2], *b = ws->vec[3];

	memcpy(a, ws->vec[1], (size_t)h * sizeof *a);
	mv_acc(a, hd->theta + hd->o.tc, p->cfg + (size_t)c * (size_t)cw, cw, h);
	relu(a, h);
	memcpy(b, hd->theta + hd->o.b2t, (size_t)r * sizeof *b);
	mv_acc(b, hd->theta + hd->o.t2, a, h, r);
	relu(b, r);
	return dotf(hd->theta + hd->o.wt, b, r);
}

static int tile_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n,
		      double *out, nn_ws *ws)
{
	if (encode(hd, p, ws) < 0)
		return -1;
	tile_graph(hd, p, ws);
	for (int64_t i = 0; i < n; i++)
		out[i] = tile_config(hd, p, ws, cfgs[i]);
	return 0;
}

/* ---- public ------------------------------------------------------------------------- */

static int compatible(const nn_head *hd, const prep *p)
{
	if ((int)p->kind != hd->d.kind || p->feat_width != hd->d.fin)
		return 0;
	if (p->kind == HS_KIND_LAYOUT)
		return p->ncf_width == hd->d.ncfw;
	return p->config_width == hd->d.ctw;
}

int nn_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n, double *out,
	     nn_ws *ws)
{
	if (!compatible(hd, p))
		return -1;
	if (n == 0)
		return 0;
	return p->kind == HS_KIND_LAYOUT ? layout_score(hd, p, cfgs, n, out, ws)
					 : tile_score(hd, p, cfgs, n, out, ws);
}

int nn_node_scores(const nn_head *hd, const prep *p, int64_t config, double *out, nn_ws *ws)
{
	int64_t taken;
	size_t used;

	if (!compatible(hd, p) || p->kind != HS_KIND_LAYOUT)
		return -1;
	if (encode(hd, p, ws) < 0 || ws_layout(ws, p, (size_t)(p->K ? p->K : 1), hd->d.h, hd->d.r) < 0)
		return -1;
	layout_base(hd, p, ws);
	used = assign_slots(p, ws, &config, 1, 0, (size_t)(p->K ? p->K : 1), &taken);
	compute_slots(hd, p, ws, 0, used);
	layout_config(hd, p, ws, config, out);
	reset_slots(ws, used);
	return 0;
}

struct ordered {
	double y;
	int64_t i;
};

static int cmp_ordered(const void *pa, const void *pb)
{
	const struct ordered *a = pa, *b = pb;

	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static double logaddexp(double a, double b)
{
	double m = a > b ? a : b;

	if (m == -INFINITY)
		return m;
	return m + log(exp(a - m) + exp(b - m));
}

double nn_rank_loss(const double *s, const double *y, int64_t n, int loss, double *ds)
{
	double total = 0;

	if (ds)
		for (int64_t i = 0; i < n; i++)
			ds[i] = 0;
	if (n < 2)
		return 0;
	if (loss == NN_LOSS_HINGE) {
		int64_t pairs = 0;

		for (int64_t i = 0; i < n; i++)
			for (int64_t j = i + 1; j < n; j++)
				pairs += y[i] != y[j];
		if (pairs == 0)
			return 0;
		for (int64_t i = 0; i < n; i++)
			for (int64_t j = i + 1; j < n; j++) {
				int64_t fast, slow;
				double l;

				if (y[i] == y[j])
					continue;
				fast = y[i] < y[j] ? i : j;
				slow = fast == i ? j : i;
				l = 1.0 - (s[slow] - s[fast]);
				if (l > 0) {
					total += l;
					if (ds) {
						ds[slow] -= 1.0 / (double)pairs;
						ds[fast] += 1.0 / (double)pairs;
					}
				}
			}
		return total / (double)pairs;
	}
	/* ListMLE with utilities u = -s, in the measured order pi (fastest
	 * first): sum_i [log sum_{t >= i} exp(u_pi(t)) - u_pi(i)]. */
	struct ordered *o = malloc((size_t)n * sizeof *o);
	double *lse = malloc((size_t)n * sizeof *lse);

	if (!o || !lse) {
		free(o);
		free(lse);
		return NAN;
	}
	for (int64_t i = 0; i < n; i++)
		o[i] = (struct ordered){y[i], i};
	qsort(o, (size_t)n, sizeof *o, cmp_ordered);
	lse[n - 1] = -s[o[n - 1].i];
	for (int64_t i = n - 2; i >= 0; i--)
		lse[i] = logaddexp(-s[o[i].i], lse[i + 1]);
	for (int64_t i = 0; i < n; i++)
		total += lse[i] + s[o[i].i];
	if (ds) {
		/* d/du_pi(t) = sum_{i <= t} exp(u_pi(t) - lse_i) - 1. */
		double acc = -INFINITY;

		for (int64_t t = 0; t < n; t++) {
			double u = -s[o[t].i], du;

			acc = logaddexp(acc, -lse[t]);
			du = exp(u + acc) - 1.0;
			ds[o[t].i] = -du / (double)n;
		}
	}
	free(o);
	free(lse);
	return total / (double)n;
}

double nn_loss_grad(const nn_head *hd, const prep *p, const int64_t *uniq, int64_t n, int loss,
		    float *grad, nn_ws *ws)
{
	double l;

	if (!compatible(hd, p) || ws_configs(ws, (size_t)n) < 0)
		return NAN;
	for (int64_t i = 0; i < n; i++) {
		ws->cfg[i] = p->uniq_rep[uniq[i]];
		ws->y[i] = p->uniq_runtime[uniq[i]];
	}
	if (p->kind == HS_KIND_LAYOUT) {
		size_t slots = (size_t)n * (size_t)p->K, used;
		int64_t taken;

		if ((size_t)p->n_entries < slots)
			slots = (size_t)p->n_entries;
		if (encode(hd, p, ws) < 0 || ws_layout(ws, p, slots ? slots : 1, hd->d.h, hd->d.r) < 0)
			return NAN;
		layout_base(hd, p, ws);
		used = assign_slots(p, ws, ws->cfg, n, 0, slots ? slots : 1, &taken);
		compute_slots(hd, p, ws, 0, used);
		for (int64_t i = 0; i < n; i++)
			ws->s[i] = layout_config(hd, p, ws, ws->cfg[i], NULL);
		l = nn_rank_loss(ws->s, ws->y, n, loss, ws->ds);
		if (isnan(l)) {
			reset_slots(ws, used);
			return NAN;
		}
		memset(ws->dZ, 0, used * (size_t)hd->d.h * sizeof *ws->dZ);
		memset(ws->dP, 0, used * (size_t)hd->d.h * sizeof *ws->dP);
		memset(ws->dQ, 0, used * (size_t)hd->d.h * sizeof *ws->dQ);
		memset(ws->dU, 0, used * (size_t)hd->d.h * sizeof *ws->dU);
		for (int64_t i = 0; i < n; i++)
			if (ws->ds[i] != 0)
				layout_config_back(hd, p, ws, ws->cfg[i], ws->ds[i], grad);
		slots_back(hd, p, ws, used, grad);
		reset_slots(ws, used);
		encode_back(hd, p, ws, grad);
		return l;
	}
	/* Tile. */
	int h = hd->d.h, r = hd->d.r, cw = hd->d.ctw, L = hd->d.layers;
	const float *th = hd->theta;

	if (encode(hd, p, ws) < 0)
		return NAN;
	tile_graph(hd, p, ws);
	for (int64_t i = 0; i < n; i++)
		ws->s[i] = tile_config(hd, p, ws, ws->cfg[i]);
	l = nn_rank_loss(ws->s, ws->y, n, loss, ws->ds);
	if (isnan(l))
		return NAN;
	float *dgt = ws->vec[4], *db = ws->vec[5], *da = ws->vec[6], *dg = ws->vec[7];

	memset(dgt, 0, (size_t)h * sizeof *dgt);
	for (int64_t i = 0; i < n; i++) {
		float ds = (float)ws->ds[i];
		const float *a = ws->vec[2], *b = ws->vec[3];

		if (ds == 0)
			continue;
		tile_config(hd, p, ws, ws->cfg[i]);
		axpy(grad + hd->o.wt, ds, b, r);
		for (int j = 0; j < r; j++)
			db[j] = b[j] > 0 ? ds * th[hd->o.wt + (size_t)j] : 0;
		axpy(grad + hd->o.b2t, 1, db, r);
		outer_acc(grad + hd->o.t2, a, db, h, r);
		memset(da, 0, (size_t)h * sizeof *da);
		mvt_acc(da, th + hd->o.t2, db, h, r);
		for (int j = 0; j < h; j++)
			da[j] = a[j] > 0 ? da[j] : 0;
		outer_acc(grad + hd->o.tc, p->cfg + (size_t)ws->cfg[i] * (size_t)cw, da, cw, h);
		axpy(dgt, 1, da, h);
	}
	axpy(grad + hd->o.bt, 1, dgt, h);
	outer_acc(grad + hd->o.tg, ws->vec[0], dgt, h, h);
	memset(dg, 0, (size_t)h * sizeof *dg);
	mvt_acc(dg, th + hd->o.tg, dgt, h, h);
	memset(ws->DA, 0, (size_t)p->n * (size_t)h * sizeof *ws->DA);
	for (int64_t v = 0; v < p->n; v++)
		axpy(ws->DA + (size_t)v * (size_t)h, 1.0f / (float)p->n, dg, h);
	(void)L;
	encode_back(hd, p, ws, grad);
	return l;
}
