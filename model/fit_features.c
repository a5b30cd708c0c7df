/* fit_features.c - the config features of one graph for the fit
 * (fit_impl.h), their Gram matrices, and every config's score from the
 * fitted dual weights. */
#include "model/fit_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ONEHOT 32

/* ---- features ------------------------------------------------------------------ */

void fitdata_free(fitdata *f)
{
	prep_free(f->p);
	free(f->used);
	free(f->bucket);
	free(f->opi);
	free(f->off);
	free(f->col);
	free(f->val);
}

int fit_layout_features(hs_graph *g, fitdata *f, hs_error *err)
{
	prep_opts po = {.radius = 0, .cfg_hops = 0};
	prep *p = prep_layout(g, &po, err);

	if (!p)
		return -1;
	f->p = p;
	f->W = p->ncf_width;
	f->used = malloc((size_t)(p->K ? p->K : 1) * sizeof *f->used);
	f->bucket = malloc((size_t)(p->n_entries * f->W > 0 ? p->n_entries * f->W : 1));
	f->opi = malloc((size_t)(p->K ? p->K : 1) * sizeof *f->opi);
	if (!f->used || !f->bucket || !f->opi)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory preparing the fit", g->name);
	{
		int seen[256];

		memset(seen, -1, sizeof seen);
		for (int64_t k = 0; k < p->K; k++) {
			int op = g->opcode[p->cfg_node[k]];

			if (p->entry_base[k + 1] - p->entry_base[k] > 1)
				f->used[f->n_used++] = k;
			if (seen[op] < 0)
				seen[op] = f->n_ops++;
			f->opi[k] = seen[op];
		}
		f->d0 = (int64_t)f->n_ops * f->W * PREP_BUCKETS;
	}
	for (int64_t e = 0; e < p->n_entries; e++)
		for (int j = 0; j < f->W; j++)
			f->bucket[(size_t)e * (size_t)f->W + (size_t)j] =
				(uint8_t)prep_bucket(p->entry_val[(size_t)e * (size_t)f->W + (size_t)j]);
	return 0;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Standardized t(x) of every varying column, plus an indicator per
 * distinct value of columns with at most MAX_ONEHOT of them. */
int fit_tile_features(const hs_graph *g, fitdata *f, hs_error *err)
{
	int w = g->config_width;
	int64_t C = g->n_configs, nnz = 0, d = w;
	size_t ws = (size_t)(w ? w : 1);
	float *vals = malloc((size_t)(C ? C : 1) * sizeof *vals);
	float (*distinct)[MAX_ONEHOT] = calloc(ws, sizeof *distinct);
	int *nd = calloc(ws, sizeof *nd);
	int64_t *base = calloc(ws, sizeof *base);
	double *mean = calloc(ws, sizeof *mean), *sd = calloc(ws, sizeof *sd);
	int rc = -1;

	if (!vals || !distinct || !nd || !base || !mean || !sd)
		goto out;
	for (int j = 0; j < w; j++) {
		int64_t n = 0;
		double s1 = 0, s2 = 0;

		for (int64_t c = 0; c < C; c++) {
			float x = g->config_feat[(size_t)c * (size_t)w + (size_t)j], t = prep_t(x);

			vals[c] = x;
			s1 += t;
			s2 += (double)t * t;
		}
		mean[j] = C ? s1 / (double)C : 0;
		sd[j] = C ? sqrt(fmax(s2 / (double)C - mean[j] * mean[j], 0)) : 0;
		qsort(vals, (size_t)C, sizeof *vals, cmp_float);
		for (int64_t c = 0; c < C; c++)
			if (c == 0 || vals[c] != vals[c - 1])
				n++;
		if (n > 1 && n <= MAX_ONEHOT) {
			int k = 0;

			for (int64_t c = 0; c < C; c++)
				if (c == 0 || vals[c] != vals[c - 1])
					distinct[j][k++] = vals[c];
			nd[j] = k;
			base[j] = d;
			d += k;
		}
	}
	f->d = d;
	f->off = malloc((size_t)(C + 1) * sizeof *f->off);
	f->col = malloc((size_t)(C * 2 * w > 0 ? C * 2 * w : 1) * sizeof *f->col);
	f->val = malloc((size_t)(C * 2 * w > 0 ? C * 2 * w : 1) * sizeof *f->val);
	if (!f->off || !f->col || !f->val)
		goto out;
	for (int64_t c = 0; c < C; c++) {
		const float *x = g->config_feat + (size_t)c * (size_t)w;

		f->off[c] = nnz;
		for (int j = 0; j < w; j++)
			if (sd[j] > 1e-12) {
				f->col[nnz] = j;
				f->val[nnz++] = (prep_t(x[j]) - mean[j]) / sd[j];
			}
		for (int j = 0; j < w; j++)
			for (int k = 0; k < nd[j]; k++)
				if (distinct[j][k] == x[j]) {
					f->col[nnz] = base[j] + k;
					f->val[nnz++] = 1;
				}
	}
	f->off[C] = nnz;
	rc = 0;
out:
	free(vals);
	free(distinct);
	free(nd);
	free(base);
	free(mean);
	free(sd);
	return rc < 0 ? hs_fail(err, HS_ENOMEM, "%s: out of memory preparing the fit", g->name) : 0;
}

int64_t fit_feature_count(const fitdata *f)
{
	int64_t n = 0;

	if (f->kind == HS_KIND_TILE)
		return f->d;
	for (int64_t i = 0; i < f->n_used; i++) {
		int64_t k = f->used[i];

		n += f->p->entry_base[k + 1] - f->p->entry_base[k] + PREP_BUCKETS * f->W;
	}
	return n + f->d0;
}

/* ---- Gram matrices -------------------------------------------------------------- */

static double sdot(const fitdata *f, int64_t a, int64_t b)
{
	int64_t i = f->off[a], j = f->off[b], ie = f->off[a + 1], je = f->off[b + 1];
	double t = 0;

	while (i < ie && j < je) {
		if (f->col[i] == f->col[j])
			t += f->val[i++] * f->val[j++];
		else if (f->col[i] < f->col[j])
			i++;
		else
			j++;
	}
	return t;
}

/* Count features of config c: raw[d] for d = (opcode, position, bucket),
 * the number of varying nodes with that opcode and that value there. */
static void counts(const fitdata *f, int64_t c, double *raw)
{
	const int32_t *row = f->p->rows + (size_t)c * (size_t)f->p->K;
	int W = f->W;

	memset(raw, 0, (size_t)f->d0 * sizeof *raw);
	for (int64_t u = 0; u < f->n_used; u++) {
		int64_t k = f->used[u];
		const uint8_t *b = f->bucket + (size_t)row[k] * (size_t)W;

		for (int j = 0; j < W; j++)
			raw[((size_t)f->opi[k] * (size_t)W + (size_t)j) * PREP_BUCKETS + b[j]] += 1;
	}
}

/* Raw Gram matrices over the configs idx[0..n), each n x n row-major:
 * G2 node choices (tile: the explicit features), and for layout G1
 * per-position values and G0 counts.  Returns -1 when out of memory. */
int fit_grams(const fitdata *f, const int64_t *idx, int64_t n, double *G2, double *G1, double *G0)
{
	double *cnt = NULL;

	if (f->kind != HS_KIND_TILE) {
		cnt = malloc((size_t)(n * f->d0 > 0 ? n * f->d0 : 1) * sizeof *cnt);
		if (!cnt)
			return -1;
		for (int64_t a = 0; a < n; a++)
			counts(f, idx[a], cnt + (size_t)a * (size_t)f->d0);
	}
	for (int64_t a = 0; a < n; a++)
		for (int64_t b = 0; b <= a; b++) {
			double g2 = 0, g1 = 0, g0 = 0;

			if (f->kind == HS_KIND_TILE) {
				g2 = sdot(f, idx[a], idx[b]);
			} else {
				const int32_t *ra = f->p->rows + (size_t)idx[a] * (size_t)f->p->K;
				const int32_t *rb = f->p->rows + (size_t)idx[b] * (size_t)f->p->K;
				const double *ca = cnt + (size_t)a * (size_t)f->d0, *cb = cnt + (size_t)b * (size_t)f->d0;
				int W = f->W;

				for (int64_t i = 0; i < f->n_used; i++) {
					int64_t k = f->used[i];
					int32_t ea = ra[k], eb = rb[k];

					if (ea == eb) {
						g2 += 1;
						g1 += W;
					} else {
						const uint8_t *ba = f->bucket + (size_t)ea * (size_t)W;
						const uint8_t *bb = f->bucket + (size_t)eb * (size_t)W;
						int m = 0;

						for (int j = 0; j < W; j++)
							m += ba[j] == bb[j];
						g1 += m;
					}
				}
				for (int64_t d = 0; d < f->d0; d++)
					g0 += ca[d] * cb[d];
			}
			G2[a * n + b] = G2[b * n + a] = g2;
			if (G1) {
				G1[a * n + b] = G1[b * n + a] = g1;
				G0[a * n + b] = G0[b * n + a] = g0;
			}
		}
	free(cnt);
	return 0;
}

/* ---- scores -------------------------------------------------------------------- */

/* Tile: the sparse features fold into one weight per feature. */
static int score_tile(const fitdata *f, const int64_t *train, int64_t n, const double *alpha,
		      double asum, double ym, const mix *m, double *out)
{
	double *w = calloc((size_t)(f->d ? f->d : 1), sizeof *w), *mu = calloc((size_t)(f->d ? f->d : 1), sizeof *mu);
	double b = ym;

	if (!w || !mu) {
		free(w);
		free(mu);
		return -1;
	}
	for (int64_t i = 0; i < n; i++)
		for (int64_t t = f->off[train[i]]; t < f->off[train[i] + 1]; t++) {
			w[f->col[t]] += alpha[i] * f->val[t];
			mu[f->col[t]] += f->val[t] / (double)n;
		}
	for (int64_t j = 0; j < f->d; j++) {
		w[j] = m->c[0] * (w[j] - asum * mu[j]);
		b -= mu[j] * w[j];
	}
	for (int64_t cc = 0; cc < f->C; cc++) {
		double v = b;

		for (int64_t t = f->off[cc]; t < f->off[cc + 1]; t++)
			v += f->val[t] * w[f->col[t]];
		out[cc] = v;
	}
	free(w);
	free(mu);
	return 0;
}

/* Layout: every block is a sum over nodes of per-entry indicators, so all
 * of them fold into one weight per entry. */
static int score_layout(const fitdata *f, const int64_t *train, int64_t n, const double *alpha,
			double asum, double ym, const mix *m, double k0, double *out)
{
	const prep *p = f->p;
	int W = f->W;
	size_t n1 = (size_t)p->K * (size_t)W * PREP_BUCKETS, ne = (size_t)(p->n_entries ? p->n_entries : 1);
	double *v2 = calloc(ne, sizeof *v2), *m2 = calloc(ne, sizeof *m2), *ew = calloc(ne, sizeof *ew);
	double *v1 = calloc(n1 ? n1 : 1, sizeof *v1), *m1 = calloc(n1 ? n1 : 1, sizeof *m1);
	double *v0 = calloc((size_t)(f->d0 ? f->d0 : 1), sizeof *v0), *m0 = calloc((size_t)(f->d0 ? f->d0 : 1), sizeof *m0);
	double b = ym, c0 = m->c[2] * k0;
	int rc = -1;

	if (!v2 || !m2 || !ew || !v1 || !m1 || !v0 || !m0)
		goto out;
	for (int64_t i = 0; i < n; i++) {
		const int32_t *row = p->rows + (size_t)train[i] * (size_t)p->K;

		for (int64_t u = 0; u < f->n_used; u++) {
			int64_t k = f->used[u];
			int32_t e = row[k];

			v2[e] += alpha[i];
			m2[e] += 1.0 / (double)n;
			for (int j = 0; j < W; j++) {
				uint8_t bk = f->bucket[(size_t)e * (size_t)W + (size_t)j];
				size_t x1 = ((size_t)k * (size_t)W + (size_t)j) * PREP_BUCKETS + bk;
				size_t x0 = ((size_t)f->opi[k] * (size_t)W + (size_t)j) * PREP_BUCKETS + bk;

				v1[x1] += alpha[i];
				m1[x1] += 1.0 / (double)n;
				v0[x0] += alpha[i];
				m0[x0] += 1.0 / (double)n;
			}
		}
	}
	for (size_t e = 0; e < (size_t)p->n_entries; e++) {
		v2[e] -= asum * m2[e];
		b -= m->c[0] * m2[e] * v2[e];
	}
	for (size_t x = 0; x < n1; x++) {
		v1[x] -= asum * m1[x];
		b -= m->c[1] * m1[x] * v1[x];
	}
	for (int64_t x = 0; x < f->d0; x++) {
		v0[x] -= asum * m0[x];
		b -= c0 * m0[x] * v0[x];
	}
	for (int64_t u = 0; u < f->n_used; u++) {
		int64_t k = f->used[u];

		for (int64_t e = p->entry_base[k]; e < p->entry_base[k + 1]; e++) {
			double v = m->c[0] * v2[e];

			for (int j = 0; j < W; j++) {
				uint8_t bk = f->bucket[(size_t)e * (size_t)W + (size_t)j];

				v += m->c[1] * v1[((size_t)k * (size_t)W + (size_t)j) * PREP_BUCKETS + bk];
				v += c0 * v0[((size_t)f->opi[k] * (size_t)W + (size_t)j) * PREP_BUCKETS + bk];
			}
			ew[e] = v;
		}
	}
	for (int64_t cc = 0; cc < f->C; cc++) {
		const int32_t *row = p->rows + (size_t)cc * (size_t)p->K;
		double v = b;

		for (int64_t u = 0; u < f->n_used; u++)
			v += ew[row[f->used[u]]];
		out[cc] = v;
	}
	rc = 0;
out:
	free(v2);
	free(m2);
	free(ew);
	free(v1);
	free(m1);
	free(v0);
	free(m0);
	return rc;
}

/* Scores every config with the model fitted on train[0..n) (alpha over
 * all of them).  For each feature block with raw features phi and kernel
 * weight c: f(x) = ym + sum_B c_B (phi_B(x) - mu_B) . v_B, with
 * v_B = sum_i alpha_i phi_B(x_i) - mu_B sum_i alpha_i. */
int fit_score_all(const fitdata *f, const int64_t *train, int64_t n, const double *alpha, double ym,
		     const mix *m, double k0, double *out)
{
	double asum = 0;

	for (int64_t i = 0; i < n; i++)
		asum += alpha[i];
	if (f->kind == HS_KIND_TILE)
		return score_tile(f, train, n, alpha, asum, ym, m, out);
	return score_layout(f, train, n, alpha, asum, ym, m, k0, out);
}
