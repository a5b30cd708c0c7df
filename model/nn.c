/* nn.c - the learned rankers' state: dimensions, parameters and their
 * initial values, the workspace; and the public entry points, which check
 * that a prep fits the head and hand over to the encoder and the heads
 * (nn_impl.h lists the files). */
#include "model/nn_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "loader/graph.h"

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
	if (d->kind != HS_KIND_TILE) {
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
	if (d->kind != HS_KIND_TILE) {
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
	TAKE(pw, 1);
	TAKE(gate, 1);
#undef TAKE
	o->total = t;
}

static void init_uniform(float *w, size_t n, double limit, hs_splitmix *g)
{
	for (size_t i = 0; i < n; i++)
		w[i] = (float)((2 * hs_splitmix_unit(g) - 1) * limit);
}

nn_head *nn_head_new(const nn_dims *d, uint64_t seed)
{
	nn_head *hd = calloc(1, sizeof *hd);
	hs_splitmix g = hs_splitmix_seed(seed);
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
	if (d->kind != HS_KIND_TILE) {
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
	hd->theta[hd->o.pw] = 1;
	hd->theta[hd->o.gate] = 1;
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
	free(ws->raw);
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

int nn_ws_encoder(nn_ws *ws, size_t nh, int layers)
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

int nn_ws_layout(nn_ws *ws, const prep *p, size_t slots, int h, int r)
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

int nn_ws_configs(nn_ws *ws, size_t n)
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
	a = realloc(ws->raw, (n ? n : 1) * sizeof *a);
	if (!a)
		return -1;
	ws->raw = a;
	int64_t *c = realloc(ws->cfg, (n ? n : 1) * sizeof *c);
	if (!c)
		return -1;
	ws->cfg = c;
	ws->cap_cfg = n;
	return 0;
}

/* ---- public ------------------------------------------------------------------------- */

static int compatible(const nn_head *hd, const prep *p)
{
	if ((int)p->kind != hd->d.kind || p->feat_width != hd->d.fin)
		return 0;
	if (p->kind != HS_KIND_TILE)
		return p->ncf_width == hd->d.ncfw;
	return p->config_width == hd->d.ctw;
}

double nn_total(const nn_head *hd, const prep *p, int64_t c, double score)
{
	return (double)hd->theta[hd->o.pw] * (p->prior ? p->prior[c] : 0) + (double)hd->theta[hd->o.gate] * score;
}

void nn_prior_apply(const nn_head *hd, const prep *p, int64_t n, nn_ws *ws)
{
	for (int64_t i = 0; i < n; i++) {
		ws->raw[i] = ws->s[i];
		ws->s[i] = nn_total(hd, p, ws->cfg[i], ws->s[i]);
	}
}

void nn_prior_back(const nn_head *hd, const prep *p, int64_t n, nn_ws *ws, float *g)
{
	double dpw = 0, dgate = 0, gate = hd->theta[hd->o.gate];

	for (int64_t i = 0; i < n; i++) {
		dpw += ws->ds[i] * (p->prior ? p->prior[ws->cfg[i]] : 0);
		dgate += ws->ds[i] * ws->raw[i];
		ws->ds[i] *= gate;
	}
	g[hd->o.pw] += (float)dpw;
	g[hd->o.gate] += (float)dgate;
}

int nn_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n, double *out,
	     nn_ws *ws)
{
	int rc;

	if (!compatible(hd, p))
		return -1;
	if (n == 0)
		return 0;
	rc = p->kind != HS_KIND_TILE ? nn_layout_score(hd, p, cfgs, n, out, ws)
				       : nn_tile_score(hd, p, cfgs, n, out, ws);
	for (int64_t i = 0; rc == 0 && i < n; i++)
		out[i] = nn_total(hd, p, cfgs[i], out[i]);
	return rc;
}

int nn_node_scores(const nn_head *hd, const prep *p, int64_t config, double *out, nn_ws *ws)
{
	if (!compatible(hd, p) || p->kind == HS_KIND_TILE)
		return -1;
	return nn_layout_node_scores(hd, p, config, out, ws);
}

double nn_loss_grad(const nn_head *hd, const prep *p, const int64_t *uniq, int64_t n, int loss,
		    float *grad, nn_ws *ws)
{
	if (!compatible(hd, p) || nn_ws_configs(ws, (size_t)n) < 0)
		return NAN;
	for (int64_t i = 0; i < n; i++) {
		ws->cfg[i] = p->uniq_rep[uniq[i]];
		ws->y[i] = p->uniq_runtime[uniq[i]];
	}
	return p->kind != HS_KIND_TILE ? nn_layout_loss_grad(hd, p, n, loss, grad, ws)
					 : nn_tile_loss_grad(hd, p, n, loss, grad, ws);
}
