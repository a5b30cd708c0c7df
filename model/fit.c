/* fit.c - kernel ridge regression on one graph's config features, on top
 * of the analytic estimate as a prior.
 *
 * The model is y = ymean + beta (p - pmean) + f(x): p the prior (the rank
 * of the config's analytic estimate among the graph's configs, scaled to
 * unit variance), beta its weight, not penalized, and f a kernel ridge
 * residual on the config features.  With F the Cholesky factor of the
 * centred kernel plus the ridge, beta = pc . F^-1 yc / pc . F^-1 pc and the
 * dual weights are F^-1 (yc - beta pc) (pc, yc: p and y less their means
 * over the training configs).  The candidates cross-validation chooses
 * among are that model, the residual alone (beta = 0) and the prior alone
 * (f = 0, beta by least squares): where the measurements teach nothing the
 * fit ranks as the estimate does.
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
#include "model/cost.h"
#include "model/fit_impl.h"
#include "model/metrics.h"
#include "model/prep.h"

#define FOLDS 3
/* Layout Gram matrices cost n^2 * K node comparisons: the training set
 * shrinks below FIT_MAX_TRAIN so that n^2 * K stays under this. */
#define GRAM_BUDGET 6e8
/* Model selection (cross-validation) uses at most this many of them. */
#define CV_MAX 600

static const double lambdas[] = {1e-5, 3e-4, 0.003, 0.03, 0.3, 3.0};
#define N_LAMBDA (sizeof lambdas / sizeof lambdas[0])
/* Candidate li == PRIOR_ONLY: no residual, the prior alone. */
#define PRIOR_ONLY N_LAMBDA

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

/* The prior's weight beta for the centred prior pc[ns] through the factor,
 * and the dual weights alpha (F^-1 yc on entry) made F^-1 (yc - beta pc).
 * work holds ns doubles.  0 when pc carries nothing.  beta is not negative:
 * the estimate is taken to order configs the right way round, or not at
 * all (with a few configs a negative weight is mostly noise). */
static double kr_prior(const double *factor, int64_t ns, const double *pc, double *alpha, double *work)
{
	double num = 0, den = 0, beta;

	memcpy(work, pc, (size_t)ns * sizeof *work);
	chol_solve(factor, ns, work);
	for (int64_t a = 0; a < ns; a++) {
		num += pc[a] * alpha[a];
		den += pc[a] * work[a];
	}
	if (!(den > 0) || !(num > 0))
		return 0;
	beta = num / den;
	for (int64_t a = 0; a < ns; a++)
		alpha[a] -= beta * work[a];
	return beta;
}

/* Least-squares slope of y on the centred prior pc (the prior alone); where
 * it is not positive, a small positive one: the prior alone ranks as the
 * estimate does whatever its weight (kr_prior says why not the other way
 * round). */
static double prior_slope(const double *pc, const double *y, int64_t ns)
{
	double ym = 0, num = 0, den = 0;

	for (int64_t a = 0; a < ns; a++)
		ym += y[a];
	ym /= (double)ns;
	for (int64_t a = 0; a < ns; a++) {
		num += pc[a] * (y[a] - ym);
		den += pc[a] * pc[a];
	}
	return den > 0 && num > 0 ? num / den : 1e-6;
}

/* pc[a] = prior[ids[a]] less their mean (returned); zeros without a prior. */
static double center_prior(const double *prior, const int64_t *ids, int64_t ns, double *pc)
{
	double m = 0;

	for (int64_t a = 0; a < ns; a++)
		m += pc[a] = prior ? prior[ids[a]] : 0;
	m /= (double)(ns ? ns : 1);
	for (int64_t a = 0; a < ns; a++)
		pc[a] -= m;
	return m;
}

/* ---- fit ------------------------------------------------------------------------ */

typedef struct scratch {
	double *G, *G1, *G0, *Gm, *Gc, *base, *work, *alpha, *r, *y, *y0, *score, *truth, *pc, *pw;
	int64_t *S, *T, *ids;
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
	free(s->pc);
	free(s->pw);
	free(s->S);
	free(s->T);
	free(s->ids);
}

/* Cross-validated taus, tau[target][li][prior]: target 1 the ranks, 0
 * the standardized log; li a ridge strength, or PRIOR_ONLY; prior 1 with
 * the analytic prior (only when there is one).  NAN where no fold could be
 * solved or the candidate does not exist. */
typedef double cv_grid[2][N_LAMBDA + 1][2];

/* The held-out fold's scores of one candidate into s->score[nt]. */
static void fold_scores(const double *G, int64_t n, const scratch *s, int64_t ns, int64_t nt, double gbar,
			double ym, double beta, double pmean, const double *prior, const int64_t *train,
			int residual)
{
	for (int64_t t = 0; t < nt; t++) {
		int64_t i = s->T[t];
		double v = ym + (prior ? beta * (prior[train[i]] - pmean) : 0);

		for (int64_t a = 0; residual && a < ns; a++)
			v += s->alpha[a] * (G[i * n + s->S[a]] - s->r[i] - s->r[s->S[a]] + gbar);
		s->score[t] = v;
	}
}

/* The tie-broken tau of every candidate (cv_grid) on each of the FOLDS
 * folds of the training set (NAN where it could not be solved): every
 * FOLDS-th config from the f-th, or with `blocks` the f-th consecutive
 * third (another partition, for checking a choice made on the first).
 * Each fold is centred once and factored once per strength; both targets
 * and both prior settings share the factor. */
static void cv_taus(const double *rt, const double *prior, const int64_t *train, int64_t n, const double *G,
		    scratch *s, int blocks, cv_grid fold_tau[FOLDS])
{
	for (int f = 0; f < FOLDS; f++) {
		int64_t ns = 0, nt = 0;
		double gbar, tr, *y[2] = {s->y0, s->y}, pmean;

		for (int rank = 0; rank < 2; rank++)
			for (size_t li = 0; li <= N_LAMBDA; li++)
				fold_tau[f][rank][li][0] = fold_tau[f][rank][li][1] = NAN;
		for (int64_t i = 0; i < n; i++) {
			if ((blocks ? i * FOLDS / n : i % FOLDS) == f)
				s->T[nt++] = i;
			else
				s->S[ns++] = i;
		}
		for (int64_t a = 0; a < ns; a++)
			s->ids[a] = train[s->S[a]];
		if (make_target(rt, s->ids, ns, 0, y[0]) < 0 || make_target(rt, s->ids, ns, 1, y[1]) < 0)
			continue;
		pmean = center_prior(prior, s->ids, ns, s->pc);
		for (int64_t t = 0; t < nt; t++)
			s->truth[t] = rt[train[s->T[t]]];
		kr_center(G, n, s->S, ns, s->r, &gbar, s->base, &tr);
		for (size_t li = 0; li <= N_LAMBDA; li++) {
			if (li < N_LAMBDA && kr_factor(s->base, ns, lambdas[li], tr, s->work) < 0)
				continue;
			for (int rank = 0; rank < 2; rank++)
				for (int pr = li == PRIOR_ONLY; pr <= (prior != NULL); pr++) {
					double ym = 0, beta = 0;

					if (li == PRIOR_ONLY) {
						for (int64_t a = 0; a < ns; a++)
							ym += y[rank][a] / (double)ns;
						beta = prior_slope(s->pc, y[rank], ns);
					} else {
						kr_alpha(s->work, ns, y[rank], s->alpha, &ym);
						if (pr)
							beta = kr_prior(s->work, ns, s->pc, s->alpha, s->pw);
					}
					fold_scores(G, n, s, ns, nt, gbar, ym, beta, pmean, prior, train, li != PRIOR_ONLY);
					fold_tau[f][rank][li][pr] =
						metrics_kendall_tau_tiebroken(s->score, s->truth, (size_t)nt);
				}
		}
	}
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
	int best_li;          /* index in lambdas, or PRIOR_ONLY */
	int best_prior;       /* 1: with the analytic prior */
	double *prior;        /* [C] the prior (NULL: the estimate is n/a or constant) */
	double beta;          /* its weight in the final model */
	double *all;          /* [C] scores */
} fitrun;

static void fitrun_free(fitrun *x)
{
	fitdata_free(&x->f);
	scratch_free(&x->s);
	free(x->perm);
	free(x->prior);
	free(x->all);
}

/* The prior: the analytic estimate's rank among the configs (ties share
 * the mean rank), standardized.  NULL, and no error, when the estimate is
 * not available, fails, or gives every config the same score. */
static int make_prior(fitrun *x, hs_error *err)
{
	hs_graph *g = x->g;
	int64_t C = x->C, *ord;
	double *est, m = 0, v = 0;
	hs_error ignored = {0};

	if (!cost_available(g) || C < 2)
		return 0;
	est = malloc((size_t)C * sizeof *est);
	ord = malloc((size_t)C * sizeof *ord);
	x->prior = malloc((size_t)C * sizeof *x->prior);
	if (!est || !ord || !x->prior) {
		free(est);
		free(ord);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", g->name);
	}
	if (cost_predict_configs(g, est, &ignored) < 0 || metrics_rank_order(est, (size_t)C, ord) < 0) {
		free(x->prior);
		x->prior = NULL;
		goto out;
	}
	for (int64_t i = 0; i < C;) {
		int64_t j = i;

		while (j + 1 < C && est[ord[j + 1]] == est[ord[i]])
			j++;
		for (int64_t t = i; t <= j; t++)
			x->prior[ord[t]] = (double)(i + j) / 2.0;
		i = j + 1;
	}
	for (int64_t c = 0; c < C; c++)
		m += x->prior[c] / (double)C;
	for (int64_t c = 0; c < C; c++)
		v += (x->prior[c] - m) * (x->prior[c] - m) / (double)C;
	if (!(v > 0)) {
		free(x->prior);
		x->prior = NULL;
		goto out;
	}
	for (int64_t c = 0; c < C; c++)
		x->prior[c] = (x->prior[c] - m) / sqrt(v);
out:
	free(est);
	free(ord);
	return 0;
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
	if ((g->kind != HS_KIND_TILE ? fit_layout_features(g, &x->f, err) : fit_tile_features(g, &x->f, err)) < 0)
		return -1;
	if (g->kind != HS_KIND_TILE) {
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
	x->best_li = 4; /* 0.3 */
	x->best_lam = lambdas[x->best_li];
	x->best_rank = 1;
	x->best_cv = -INFINITY;
	return make_prior(x, err);
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
	int lay = x->g->kind != HS_KIND_TILE;
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
	s->ids = malloc((size_t)x->n_tr * sizeof *s->ids);
	s->pc = malloc((size_t)x->n_tr * sizeof *s->pc);
	s->pw = malloc((size_t)x->n_tr * sizeof *s->pw);
	x->all = malloc(C * sizeof *x->all);
	if (!s->G || (lay && (!s->G1 || !s->G0)) || !s->Gm || !s->Gc || !s->base || !s->work || !s->alpha ||
	    !s->r || !s->y || !s->y0 || !s->score || !s->truth || !s->S || !s->T || !s->ids || !s->pc ||
	    !s->pw || !x->all ||
	    fit_grams(&x->f, x->perm, x->n_tr, s->G, s->G1, s->G0) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", x->g->name);
	return 0;
}

/* Cross-validation runs on two partitions of the training set: FOLDS
 * folds each, CV_RUNS * FOLDS taus per candidate; from CV_ONE_RUN configs
 * on, where a fold's tau is steadier, on one (half the time). */
#define CV_RUNS 2
#define CV_FOLDS (CV_RUNS * FOLDS)
#define CV_ONE_RUN 300

/* Mean over the folds where it is defined (NAN when it never is). */
static double fold_mean(cv_grid f[CV_FOLDS], int rank, size_t li, int pr)
{
	double sum = 0;
	int k = 0;

	for (int i = 0; i < CV_FOLDS; i++)
		if (!isnan(f[i][rank][li][pr])) {
			sum += f[i][rank][li][pr];
			k++;
		}
	return k ? sum / k : NAN;
}

/* Whether the candidate beats the prior alone (target prank) by more than
 * the standard error of their difference, fold by fold. */
static int beats_prior(cv_grid f[CV_FOLDS], int rank, size_t li, int pr, int prank)
{
	double d[CV_FOLDS], m = 0, v = 0;
	int k = 0;

	for (int i = 0; i < CV_FOLDS; i++)
		if (!isnan(f[i][rank][li][pr]) && !isnan(f[i][prank][PRIOR_ONLY][1]))
			m += d[k++] = f[i][rank][li][pr] - f[i][prank][PRIOR_ONLY][1];
	if (k < 2)
		return 1;
	m /= k;
	for (int i = 0; i < k; i++)
		v += (d[i] - m) * (d[i] - m);
	return m > sqrt(v / (k - 1) / k);
}

/* Target, ridge strength, kernel mix and the prior's use by
 * cross-validation on the first n_cv training configs (two partitions of
 * FOLDS folds): the candidate with the best mean tie-broken tau (ties go
 * to the first: ranks, the earlier mix, the weaker ridge, without the
 * prior), except that the prior alone (the analytic estimate's order)
 * wins when it ranks the held-out folds at all (mean tau > 0) and that
 * candidate does not beat it by more than a standard error of their
 * difference over the folds: measurements that do not clearly improve on
 * the estimate do not replace it. */
static void select_model(fitrun *x)
{
	int64_t n = x->n_tr, m = x->n_cv;
	scratch *s = &x->s;
	double prior_tau = -INFINITY;
	int prior_rank = 1, wins = 1;
	cv_grid (*f)[CV_FOLDS] = malloc((size_t)x->n_mix * sizeof *f);

	if (m < 3 * FOLDS || !f) {
		/* Too few configs to choose by: the estimate alone, or failing
		 * that the defaults. */
		free(f);
		if (x->prior) {
			x->best_li = PRIOR_ONLY;
			x->best_lam = NAN;
			x->best_prior = 1;
		}
		return;
	}
	for (int mi = 0; mi < x->n_mix; mi++) {
		mix_gram(s, n, &x->mixes[mi], x->k0, s->Gm);
		for (int64_t a = 0; a < m; a++)
			for (int64_t b = 0; b < m; b++)
				s->Gc[a * m + b] = s->Gm[a * n + b];
		for (int run = 0; run < CV_RUNS; run++) {
			if (run == 0 || m < CV_ONE_RUN) {
				cv_taus(x->rt, x->prior, x->perm, m, s->Gc, s, run, f[mi] + run * FOLDS);
				continue;
			}
			for (int i = run * FOLDS; i < (run + 1) * FOLDS; i++)
				for (int rank = 0; rank < 2; rank++)
					for (size_t li = 0; li <= N_LAMBDA; li++)
						f[mi][i][rank][li][0] = f[mi][i][rank][li][1] = NAN;
		}
		for (int rank = 1; rank >= 0; rank--) {
			double pt = fold_mean(f[mi], rank, PRIOR_ONLY, 1);

			if (pt > prior_tau) {
				prior_tau = pt;
				prior_rank = rank;
			}
			for (size_t li = 0; li < N_LAMBDA; li++)
				for (int pr = 0; pr < 2; pr++) {
					double t = fold_mean(f[mi], rank, li, pr);

					if (isnan(t) || t <= x->best_cv)
						continue;
					x->best_cv = t;
					x->best_li = (int)li;
					x->best_lam = lambdas[li];
					x->best_rank = rank;
					x->best_prior = pr;
					x->best_mix = &x->mixes[mi];
					wins = beats_prior(f[mi], rank, li, pr, prior_rank);
				}
		}
	}
	if (x->prior && prior_tau > 0 && !wins) {
		x->best_cv = prior_tau;
		x->best_li = PRIOR_ONLY;
		x->best_lam = NAN;
		x->best_rank = prior_rank;
		x->best_prior = 1;
		x->best_mix = &x->mixes[0];
	}
	free(f);
}

/* The chosen model on every training config, every config scored. */
static int final_fit(fitrun *x, hs_error *err)
{
	scratch *s = &x->s;
	int64_t n = x->n_tr;
	double gbar, tr, ym = 0, pmean;
	const double *prior = x->best_prior ? x->prior : NULL;

	mix_gram(s, n, x->best_mix, x->k0, s->Gm);
	for (int64_t i = 0; i < n; i++)
		s->S[i] = i;
	if (make_target(x->rt, x->perm, n, x->best_rank, s->y) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", x->g->name);
	pmean = center_prior(prior, x->perm, n, s->pc);
	x->beta = 0;
	if (x->best_li == PRIOR_ONLY) {
		for (int64_t a = 0; a < n; a++) {
			ym += s->y[a] / (double)n;
			s->alpha[a] = 0;
		}
		x->beta = prior_slope(s->pc, s->y, n);
	} else {
		kr_center(s->Gm, n, s->S, n, s->r, &gbar, s->work, &tr);
		if (kr_factor(s->work, n, x->best_lam, tr, s->work) < 0)
			return hs_fail(err, HS_EDATA, "%s: the ridge system could not be solved", x->g->name);
		kr_alpha(s->work, n, s->y, s->alpha, &ym);
		if (prior)
			x->beta = kr_prior(s->work, n, s->pc, s->alpha, s->pw);
	}
	if (fit_score_all(&x->f, x->perm, n, s->alpha, ym, x->best_mix, x->k0, x->all) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory fitting", x->g->name);
	for (int64_t c = 0; prior && c < x->C; c++)
		x->all[c] += x->beta * (prior[c] - pmean);
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
		return hs_fail(err, HS_EUSAGE, "the training fraction must be between 0 and 1 (exclusive)");
	if (!o->runtime && !g->labeled)
		return hs_fail(err, HS_EUSAGE, "%s: %s: nothing to fit", g->name,
			       g->kind == HS_KIND_MODULE ? "a module has no configs" : "no measured runtimes (test split)");
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
	r->prior_available = x.prior != NULL;
	r->prior_used = x.best_prior;
	r->residual = x.best_li != PRIOR_ONLY;
	r->prior_weight = x.best_prior ? x.beta : NAN;
	rc = 0;
out:
	fitrun_free(&x);
	return rc;
}

const char *fit_model_name(const fit_result *r)
{
	if (!r->residual)
		return "analytic estimate alone";
	return r->prior_used ? "analytic estimate + kernel ridge" : "kernel ridge";
}

int fit_heldout(hs_graph *g, double fraction, uint64_t seed, fit_result *r, double *pred,
		uint8_t *is_train, hs_error *err)
{
	fit_opts o = {.fraction = fraction, .seed = seed};

	return fit_run(g, &o, r, pred, is_train, err);
}
