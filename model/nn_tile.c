/* nn_tile.c - the tile head (nn.h): the graph's mean embedding, one
 * config's score, and the batch loss with its gradient. */
#include "model/nn_impl.h"

#include <math.h>
#include <string.h>

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

int nn_tile_score(const nn_head *hd, const prep *p, const int64_t *cfgs, int64_t n,
		  double *out, nn_ws *ws)
{
	if (nn_encode(hd, p, ws) < 0)
		return -1;
	tile_graph(hd, p, ws);
	for (int64_t i = 0; i < n; i++)
		out[i] = tile_config(hd, p, ws, cfgs[i]);
	return 0;
}

/* The batch's configs and runtimes are in ws->cfg[n], ws->y[n]. */
double nn_tile_loss_grad(const nn_head *hd, const prep *p, int64_t n, int loss, float *grad,
			 nn_ws *ws)
{
	double l;
	int h = hd->d.h, r = hd->d.r, cw = hd->d.ctw;
	const float *th = hd->theta;

	if (nn_encode(hd, p, ws) < 0)
		return NAN;
	tile_graph(hd, p, ws);
	for (int64_t i = 0; i < n; i++)
		ws->s[i] = tile_config(hd, p, ws, ws->cfg[i]);
	nn_prior_apply(hd, p, n, ws);
	l = nn_rank_loss(ws->s, ws->y, n, loss, ws->ds);
	if (isnan(l))
		return NAN;
	nn_prior_back(hd, p, n, ws, grad);
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
	nn_encode_back(hd, p, ws, grad);
	return l;
}
