/* fit.c - kernel ridge regression on one graph's config features.
 *
 * Everything is computed from Gram matrices over the training configs, so
 * cross-validation over targets, ridge strengths and feature mixes costs
 * one Cholesky factorization per candidate and fold.  The final model is
 * turned back into weights (primal form) to score every config cheaply.
 */
#include "model/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/plural.h"
#include "base/rng.h"
#include "model/metrics.h"
#include "model/prep.h"

#define FOLDS 3
#define MAX_ONEHOT 32
/* Layout Gram matrices cost n^2 * K node comparisons: the training set
 * shrinks below FIT_MAX_TRAIN so that n^2 * K stays under this. */
#define GRAM_BUDGET 6e8
/* Model selection (cross-validation) uses at most this many of them. */
#define CV_MAX 600

static const double lambdas[] = {0.003, 0.03, 0.3, 3.0};
#define N_LAMBDA (sizeof lambdas / sizeof lambdas[0])

/* ---- features ------------------------------------------------------------------ */

typedef struct fitdata {
	int kind;
	int64_t C;
	/* Layout: the prep's entries and rows; nodes whose row varies. */
	prep *p;
	int64_t *used;          /* [n_used] node indices */
	int64_t n_used;
	int W;
	uint8_t *bucket;        /* [n_entries * W] one-hot bucket of each position */
	int *opi;               /* [K] index of the node's opcode among n_ops */
	int n_ops;
	int64_t d0;             /* n_ops * W * PREP_BUCKETS count features */
	/* Tile: explicit sparse rows, columns ascending. */
	int64_t d;
	int64_t *off, *col;
	double *val;
} fitdata;

static void fitdata_free(fitdata *f)
{
	prep_free(f->p);
	free(f->used);
	free(f->bucket);
	free(f->opi);
	free(f->off);
	free(f->col);
	free(f->val);
}

static int bucket_of(float v)
{
	if (v == -1)
		return 0;
	if (v >= 0 && v <= 5 && v == floorf(v))
		return (int)v + 1;
	return PREP_BUCKETS - 1;
}

static int layout_features(hs_graph *g, fitdata *f, hs_error *err)
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
				(uint8_t)bucket_of(p->entry_val[(size_t)e * (size_t)f->W + (size_t)j]);
	return 0;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Standardized t(x) of every varying column, plus an indicator per
 * distinct value of columns with at most MAX_ONEHOT of them. */
static int tile_features(const hs_graph *g, fitdata *f, hs_error *err)
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

static int64_t feature_count(const fitdata *f)
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
static int grams(const fitdata *f, const int64_t *idx, int64_t n, double *G2, double *G1, double *G0)
{
	double *cnt = NULL;

	if (f->kind == HS_KIND_LAYOUT) {
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

/* ---- kernel ridge --------------------------------------------------------------- */

static int cholesky(double *a, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		double d = a[j * n + j];

		for (int64_t k = 0; k < j; k++)
			d -= a[j * n + k] * a[j * n + k];
		if (d <= 0)
			return -1;
		d = sqrt(d);
		a[j * n + j] = d;
		for (int64_t i = j + 1; i < n; i++) {
			double s = a[i * n + j];

			for (int64_t k = 0; k < j; k++)
				s -= a[i * n + k] * a[j * n + k];
			a[i * n + j] = s / d;
		}
	}
	return 0;
}

static void chol_solve(const double *l, int64_t n, double *x)
{
	for (int64_t i = 0; i < n; i++) {
		double s = x[i];

		for (int64_t k = 0; k < i; k++)
			s -= l[i * n + k] * x[k];
		x[i] = s / l[i * n + i];
	}
	for (int64_t i = n - 1; i >= 0; i--) {
		double s = x[i];

		for (int64_t k = i + 1; k < n; k++)
			s -= l[k * n + i] * x[k];
		x[i] = s / l[i * n + i];
	}
}

/* Targets of runtimes rt[idx[0..n)]: the rank (ties averaged, scaled to
 * 0..1) or the standardized log. */
static int make_target(const double *rt, const int64_t *idx, int64_t n, int rank, double *y)
{
	if (rank) {
		int64_t *ord = malloc((size_t)(n ? n : 1) * sizeof *ord);
		double *r = malloc((size_t)(n ? n : 1) * sizeof *r);

		if (!ord || !r) {
			free(ord);
			free(r);
			return -1;
		}
		for (int64_t i = 0; i < n; i++)
			r[i] = rt[idx[i]];
		if (metrics_rank_order(r, (size_t)n, ord) < 0) {
			free(ord);
			free(r);
			return -1;
		}
		for (int64_t i = 0; i < n;) {
			int64_t j = i;

			while (j + 1 < n && r[ord[j + 1]] == r[ord[i]])
				j++;
			for (int64_t t = i; t <= j; t++)
				y[ord[t]] = ((double)(i + j) / 2.0) / (double)(n > 1 ? n - 1 : 1);
			i = j + 1;
		}
		free(ord);
		free(r);
		return 0;
	}
	double m = 0, v = 0;

	for (int64_t i = 0; i < n; i++) {
		y[i] = log(rt[idx[i]] > 0 ? rt[idx[i]] : 1);
		m += y[i];
	}
	m /= (double)(n ? n : 1);
	for (int64_t i = 0; i < n; i++)
		v += (y[i] - m) * (y[i] - m);
	v = sqrt(v / (double)(n ? n : 1));
	for (int64_t i = 0; i < n; i++)
		y[i] = v > 0 ? (y[i] - m) / v : 0;
	return 0;
}

/* Kernel ridge on the Gram G (n x n) with training rows S[0..ns), in three
 * steps so that cross-validation shares what does not change between its
 * candidates: kr_center once per fold, kr_factor once per ridge strength,
 * kr_alpha once per target.  The model is
 *   f(t) = ymean + sum_a alpha_a (G[t][S_a] - r_t - r[S_a] + gbar).
 *
 * kr_center: r[n], the row means of G over S; gbar, their mean over S; the
 * centred kernel of S in base (ns x ns); *tr its mean diagonal (1 when not
 * positive), the scale of the ridge. */
static void kr_center(const double *G, int64_t n, const int64_t *S, int64_t ns, double *r, double *gbar,
		      double *base, double *tr)
{
	double gb = 0, t = 0;

	for (int64_t i = 0; i < n; i++) {
		double s = 0;

		for (int64_t a = 0; a < ns; a++)
			s += G[i * n + S[a]];
		r[i] = s / (double)ns;
	}
	for (int64_t a = 0; a < ns; a++)
		gb += r[S[a]];
	gb /= (double)ns;
	for (int64_t a = 0; a < ns; a++)
		for (int64_t b = 0; b < ns; b++)
			base[a * ns + b] = G[S[a] * n + S[b]] - r[S[a]] - r[S[b]] + gb;
	for (int64_t a = 0; a < ns; a++)
		t += base[a * ns + a];
	*gbar = gb;
	*tr = t > 0 ? t / (double)ns : 1;
}

/* The Cholesky factor of base + lam * tr * I in work (which may be base
 * itself); -1 when it is not positive definite. */
static int kr_factor(const double *base, int64_t ns, double lam, double tr, double *work)
{
	if (work != base)
		memcpy(work, base, (size_t)ns * (size_t)ns * sizeof *work);
	for (int64_t a = 0; a < ns; a++)
		work[a * ns + a] += lam * tr;
	return cholesky(work, ns);
}

/* alpha[ns] for targets y[ns] through the factor; *ymean their mean. */
static void kr_alpha(const double *factor, int64_t ns, const double *y, double *alpha, double *ymean)
{
	double ym = 0;

	for (int64_t a = 0; a < ns; a++)
		ym += y[a];
	ym /= (double)ns;
	for (int64_t a = 0; a < ns; a++)
		alpha[a] = y[a] - ym;
	chol_solve(factor, ns, alpha);
	*ymean = ym;
}

/* ---- fit ------------------------------------------------------------------------ */

typedef struct scratch {
	double *G, *G1, *G0, *Gm, *Gc, *base, *work, *alpha, *r, *y, *y0, *score, *truth;
	int64_t *S, *T;
} scratch;

static void scratch_free(scratch *s)
{
	free(s->G);
	free(s->G1);
	free(s->G0);
	free(s->Gm);
	free(s->Gc);
	free(s->base);
	free(s->work);
	free(s->alpha);
	free(s->r);
	free(s->y);
	free(s->y0);
	free(s->score);
	free(s->truth);
	free(s->S);
	free(s->T);
}

/* Mean 3-fold tau over the training set of every target (rank 1, the
 * ranks; 0, the standardized log) and ridge strength: tau[rank][l], NAN
 * where no fold could be solved.  Each fold is centred once and factored
 * once per strength; both targets share the factor. */
static void cv_taus(const double *rt, const int64_t *train, int64_t n, const double *G, scratch *s,
		    double tau[2][N_LAMBDA])
{
	double sum[2][N_LAMBDA] = {{0}};
	int cnt[2][N_LAMBDA] = {{0}};

	for (int f = 0; f < FOLDS; f++) {
		int64_t ns = 0, nt = 0;
		double gbar, tr, *y[2] = {s->y0, s->y};

		for (int64_t i = 0; i < n; i++) {
			if (i % FOLDS == f)
				s->T[nt++] = i;
			else
				s->S[ns++] = i;
		}
		int64_t *ids = malloc((size_t)ns * sizeof *ids);

		if (!ids)
			goto fail;
		for (int64_t a = 0; a < ns; a++)
			ids[a] = train[s->S[a]];
		if (make_target(rt, ids, ns, 0, y[0]) < 0 || make_target(rt, ids, ns, 1, y[1]) < 0) {
			free(ids);
			goto fail;
		}
		free(ids);
		for (int64_t t = 0; t < nt; t++)
			s->truth[t] = rt[train[s->T[t]]];
		kr_center(G, n, s->S, ns, s->r, &gbar, s->base, &tr);
		for (size_t li = 0; li < N_LAMBDA; li++) {
			if (kr_factor(s->base, ns, lambdas[li], tr, s->work) < 0)
				continue;
			for (int rank = 0; rank < 2; rank++) {
				double ym;

				kr_alpha(s->work, ns, y[rank], s->alpha, &ym);
				for (int64_t t = 0; t < nt; t++) {
					int64_t i = s->T[t];
					double v = ym;

					for (int64_t a = 0; a < ns; a++)
						v += s->alpha[a] * (G[i * n + s->S[a]] - s->r[i] - s->r[s->S[a]] + gbar);
					s->score[t] = v;
				}
				double t = metrics_kendall_tau(s->score, s->truth, (size_t)nt);

				if (!isnan(t)) {
					sum[rank][li] += t;
					cnt[rank][li]++;
				}
			}
		}
	}
	for (int rank = 0; rank < 2; rank++)
		for (size_t li = 0; li < N_LAMBDA; li++)
			tau[rank][li] = cnt[rank][li] ? sum[rank][li] / cnt[rank][li] : NAN;
	return;
fail:
	for (int rank = 0; rank < 2; rank++)
		for (size_t li = 0; li < N_LAMBDA; li++)
			tau[rank][li] = NAN;
}

/* The kernel is c[0] G2 + c[1] G1 + c[2] G0 / (varying nodes). */
typedef struct mix {
	double c[3];
} mix;

static void mix_gram(const scratch *s, int64_t n, const mix *m, double k0, double *out)
{
	for (int64_t i = 0; i < n * n; i++)
		out[i] = m->c[0] * s->G[i] + (s->G1 ? m->c[1] * s->G1[i] + m->c[2] * k0 * s->G0[i] : 0);
}

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
static int score_all(const fitdata *f, const int64_t *train, int64_t n, const double *alpha, double ym,
		     const mix *m, double k0, double *out)
{
	double asum = 0;

	for (int64_t i = 0; i < n; i++)
		asum += alpha[i];
	if (f->kind == HS_KIND_TILE)
		return score_tile(f, train, n, alpha, asum, ym, m, out);
	return score_layout(f, train, n, alpha, asum, ym, m, k0, out);
}

/* Candidate kernels for layout: node choices (categorical), per-position
 * values (generalize to unseen rows), counts per opcode and value (shared
 * across nodes; what random search needs), and mixes of them. */
static const mix layout_mixes[] = {
	{{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}, {{1, 1.0 / 18, 0}}, {{1, 0, 1}}, {{0, 1.0 / 18, 1}},
	{{1, 1.0 / 18, 1}},
};
static const mix tile_mix = {{1, 0, 0}};

/* One fit: the training set, the model chosen by cross-validation, the
 * scores. */
typedef struct fitrun {
	hs_graph *g;
	fitdata f;
	scratch s;
	const double *rt;     /* runtimes to train on */
	int64_t C, n_tr, n_cv;
	int64_t *perm;        /* [C] training configs first */
	double k0;
	const mix *mixes;
	int n_mix;
	const mix *best_mix;
	double best_lam, best_cv;
	int best_rank;
	double *all;          /* [C] scores */
} fitrun;

static void fitrun_free(fitrun *x)
{
	fitdata_free(&x->f);
	scratch_free(&x->s);
	free(x->perm);
	free(x->all);
}

/* Features, the cap, and the kernel candidates. */
static int prepare(fitrun *x, hs_graph *g, fit_result *r, hs_error *err)
{
	x->g = g;
	x->C = g->n_configs;
	x->f.kind = g->kind;
	x->f.C = x->C;
	x->k0 = 1;
	x->mixes = &tile_mix;
	x->n_mix = 1;
	r->cap = FIT_MAX_TRAIN;
	if ((g->kind == HS_KIND_LAYOUT ? layout_features(g, &x->f, err) : tile_features(g, &x->f, err)) < 0)
		return -1;
	if (g->kind == HS_KIND_LAYOUT) {
		x->mixes = layout_mixes;
		x->n_mix = (int)(sizeof layout_mixes / sizeof layout_mixes[0]);
		if (x->f.n_used > 0) {
			int64_t c2 = (int64_t)sqrt(GRAM_BUDGET / (double)x->f.n_used);

			if (c2 < r->cap)
				r->cap = c2 > 30 ? c2 : 30;
			x->k0 = 1.0 / (double)x->f.n_used;
		}
	}
	x->best_mix = &x->mixes[0];
	x->best_lam = 0.3;
	x->best_rank = 1;
	x->best_cv = -INFINITY;
	return 0;
}

/* perm[0..n_tr) is the training set: a random share of all configs, or a
 * random subset (at most the cap) of the measured ones. */
static int training_set(fitrun *x, const fit_opts *o, fit_result *r, hs_error *err)
{
	hs_graph *g = x->g;
	hs_splitmix gen = hs_splitmix_seed(o->seed);
	int64_t C = x->C, n_meas = 0;

	if (!(x->perm = malloc((size_t)(C ? C : 1) * sizeof *x->perm)))
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", g->name);
	for (int64_t c = 0; c < C; c++)
		x->perm[c] = c;
	if (o->measured) {
		/* the measured configs first, shuffled */
		for (int64_t c = 0; c < C; c++)
			n_meas += o->measured[c] != 0;
		for (int64_t c = 0, m = 0; c < C; c++)
			if (o->measured[c])
				x->perm[m++] = c;
		for (int64_t c = 0, m = n_meas; c < C; c++)
			if (!o->measured[c])
				x->perm[m++] = c;
		hs_splitmix_shuffle(&gen, x->perm, n_meas);
		r->n_wanted = n_meas;
	} else {
		hs_splitmix_shuffle(&gen, x->perm, C);
		r->n_wanted = (int64_t)llround(o->fraction * (double)C);
	}
	x->n_tr = r->n_wanted < r->cap ? r->n_wanted : r->cap;
	r->capped = x->n_tr < r->n_wanted;
	if (x->n_tr < 2 || C - x->n_tr < 2) {
		if (o->measured)
			return hs_fail(err, HS_EUSAGE,
				       "%s: %lld config%s, %lld measured: fitting needs at least 2 measured configs "
				       "and 2 others to rank", g->name, (long long)C, hs_s(C), (long long)n_meas);

		return hs_fail(err, HS_EUSAGE,
			       "%s: %lld config%s: a fraction of %g leaves %lld to fit and %lld to rank; "
			       "both need at least 2", g->name, (long long)C, hs_s(C), o->fraction,

			       (long long)(x->n_tr > 0 ? x->n_tr : 0), (long long)(C - x->n_tr > 0 ? C - x->n_tr : 0));
	}
	x->n_cv = x->n_tr < CV_MAX ? x->n_tr : CV_MAX;
	return 0;
}

static int alloc_scratch(fitrun *x, hs_error *err)
{
	size_t nn = (size_t)x->n_tr * (size_t)x->n_tr, C = (size_t)x->C;
	int lay = x->g->kind == HS_KIND_LAYOUT;
	scratch *s = &x->s;

	s->G = malloc(nn * sizeof *s->G);
	s->G1 = lay ? malloc(nn * sizeof *s->G1) : NULL;
	s->G0 = lay ? malloc(nn * sizeof *s->G0) : NULL;
	s->Gm = malloc(nn * sizeof *s->Gm);
	s->Gc = malloc((size_t)x->n_cv * (size_t)x->n_cv * sizeof *s->Gc);
	s->base = malloc((size_t)x->n_cv * (size_t)x->n_cv * sizeof *s->base);
	s->work = malloc(nn * sizeof *s->work);
	s->alpha = malloc((size_t)x->n_tr * sizeof *s->alpha);
	s->r = malloc((size_t)x->n_tr * sizeof *s->r);
	s->y = malloc((size_t)x->n_tr * sizeof *s->y);
	s->y0 = malloc((size_t)x->n_tr * sizeof *s->y0);
	s->score = malloc(C * sizeof *s->score);
	s->truth = malloc(C * sizeof *s->truth);
	s->S = malloc((size_t)x->n_tr * sizeof *s->S);
	s->T = malloc((size_t)x->n_tr * sizeof *s->T);
	x->all = malloc(C * sizeof *x->all);
	if (!s->G || (lay && (!s->G1 || !s->G0)) || !s->Gm || !s->Gc || !s->base || !s->work || !s->alpha ||
	    !s->r || !s->y || !s->y0 || !s->score || !s->truth || !s->S || !s->T || !x->all ||
	    grams(&x->f, x->perm, x->n_tr, s->G, s->G1, s->G0) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", x->g->name);
	return 0;
}

/* Target, ridge strength and kernel mix by 3-fold CV on the first n_cv
 * training configs. */
static void select_model(fitrun *x)
{
	int64_t n = x->n_tr, m = x->n_cv;
	scratch *s = &x->s;

	if (m < 3 * FOLDS)
		return;
	for (int mi = 0; mi < x->n_mix; mi++) {
		mix_gram(s, n, &x->mixes[mi], x->k0, s->Gm);
		for (int64_t a = 0; a < m; a++)
			for (int64_t b = 0; b < m; b++)
				s->Gc[a * m + b] = s->Gm[a * n + b];
		double tau[2][N_LAMBDA];

		cv_taus(x->rt, x->perm, m, s->Gc, s, tau);
		for (int rank = 1; rank >= 0; rank--)
			for (size_t li = 0; li < N_LAMBDA; li++) {
				double t = tau[rank][li];

				if (!isnan(t) && t > x->best_cv) {
					x->best_cv = t;
					x->best_lam = lambdas[li];
					x->best_rank = rank;
					x->best_mix = &x->mixes[mi];
				}
			}
	}
}

static int final_fit(fitrun *x, hs_error *err)
{
	scratch *s = &x->s;
	int64_t n = x->n_tr;
	double gbar, tr, ym;

	mix_gram(s, n, x->best_mix, x->k0, s->Gm);
	for (int64_t i = 0; i < n; i++)
		s->S[i] = i;
	if (make_target(x->rt, x->perm, n, x->best_rank, s->y) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", x->g->name);
	kr_center(s->Gm, n, s->S, n, s->r, &gbar, s->work, &tr);
	if (kr_factor(s->work, n, x->best_lam, tr, s->work) < 0)
		return hs_fail(err, HS_EDATA, "%s: the ridge system could not be solved", x->g->name);
	kr_alpha(s->work, n, s->y, s->alpha, &ym);
	if (score_all(&x->f, x->perm, n, s->alpha, ym, x->best_mix, x->k0, x->all) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", x->g->name);
	return 0;
}

/* Metrics over the configs not trained on whose runtime is known. */
static void heldout_metrics(fitrun *x, const fit_opts *o, fit_result *r)
{
	int64_t m = 0;

	for (int64_t i = x->n_tr; i < x->C; i++) {
		int64_t c = x->perm[i];

		if (o->runtime ? !(o->measured && o->measured[c]) : !x->g->labeled)
			continue;
		x->s.score[m] = x->all[c];
		x->s.truth[m++] = x->rt[c];
	}
	r->n_checked = m;
	r->heldout_tau = metrics_kendall_tau(x->s.score, x->s.truth, (size_t)m);
	r->heldout_tau_tiebroken = metrics_kendall_tau_tiebroken(x->s.score, x->s.truth, (size_t)m);
	r->heldout_opa = metrics_opa(x->s.score, x->s.truth, (size_t)m);
}

int fit_run(hs_graph *g, const fit_opts *o, fit_result *r, double *pred, uint8_t *is_train, hs_error *err)
{
	fitrun x;
	int rc = -1;

	memset(&x, 0, sizeof x);
	memset(r, 0, sizeof *r);
	r->heldout_tau = r->heldout_tau_tiebroken = r->heldout_opa = r->cv_tau = NAN;
	if (!o->measured && !(o->fraction > 0 && o->fraction < 1))
		return hs_fail(err, HS_EUSAGE, "--train-fraction must be between 0 and 1 (exclusive)");
	if (!o->runtime && !g->labeled)
		return hs_fail(err, HS_EUSAGE, "%s: no measured runtimes (test split): nothing to fit", g->name);
	x.rt = o->runtime ? o->runtime : g->runtime;
	if (prepare(&x, g, r, err) < 0 || training_set(&x, o, r, err) < 0 || alloc_scratch(&x, err) < 0)
		goto out;
	select_model(&x);
	if (x.best_cv > -INFINITY)
		r->cv_tau = x.best_cv;
	if (final_fit(&x, err) < 0)
		goto out;
	if (pred)
		memcpy(pred, x.all, (size_t)x.C * sizeof *pred);
	if (is_train) {
		memset(is_train, 0, (size_t)x.C);
		for (int64_t i = 0; i < x.n_tr; i++)
			is_train[x.perm[i]] = 1;
	}
	heldout_metrics(&x, o, r);
	r->n_train = x.n_tr;
	r->n_heldout = x.C - x.n_tr;
	r->n_features = feature_count(&x.f);
	r->lambda = x.best_lam;
	memcpy(r->kernel, x.best_mix->c, sizeof r->kernel);
	r->target = x.best_rank ? "rank" : "log";
	rc = 0;
out:
	fitrun_free(&x);
	return rc;
}

int fit_heldout(hs_graph *g, double fraction, uint64_t seed, fit_result *r, double *pred,
		uint8_t *is_train, hs_error *err)
{
	fit_opts o = {.fraction = fraction, .seed = seed};

	return fit_run(g, &o, r, pred, is_train, err);
}
