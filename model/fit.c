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
#include "model/fit_impl.h"
#include "model/prep.h"

#define FOLDS 3
/* Layout Gram matrices cost n^2 * K node comparisons: the training set
 * shrinks below FIT_MAX_TRAIN so that n^2 * K stays under this. */
#define GRAM_BUDGET 6e8
/* Model selection (cross-validation) uses at most this many of them. */
#define CV_MAX 600

static const double lambdas[] = {0.003, 0.03, 0.3, 3.0};
#define N_LAMBDA (sizeof lambdas / sizeof lambdas[0])

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

static void mix_gram(const scratch *s, int64_t n, const mix *m, double k0, double *out)
{
	for (int64_t i = 0; i < n * n; i++)
		out[i] = m->c[0] * s->G[i] + (s->G1 ? m->c[1] * s->G1[i] + m->c[2] * k0 * s->G0[i] : 0);
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
	if ((g->kind == HS_KIND_LAYOUT ? fit_layout_features(g, &x->f, err) : fit_tile_features(g, &x->f, err)) < 0)
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
	    fit_grams(&x->f, x->perm, x->n_tr, s->G, s->G1, s->G0) < 0)
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
	if (fit_score_all(&x->f, x->perm, n, s->alpha, ym, x->best_mix, x->k0, x->all) < 0)
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
	r->n_features = fit_feature_count(&x.f);
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
