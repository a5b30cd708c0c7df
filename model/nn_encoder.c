/* nn_encoder.c - the GraphSAGE-style encoder shared by both heads (nn.h):
 * forward over the prep's encoder graph, and backward to the opcode
 * embeddings and the input layer. */
#include "model/nn_impl.h"

#include <string.h>

int nn_encode(const nn_head *hd, const prep *p, nn_ws *ws)
{
	const nn_dims *d = &hd->d;
	const float *th = hd->theta;
	int h = d->h, L = d->layers, fin = d->fin;
	size_t n = (size_t)p->n;

	if (nn_ws_encoder(ws, n * (size_t)h, L) < 0)
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
void nn_encode_back(const nn_head *hd, const prep *p, nn_ws *ws, float *g)
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
