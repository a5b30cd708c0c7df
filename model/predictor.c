/* predictor.c - see predictor.h. */
#include "model/predictor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "model/calibrate.h"
#include "model/fit.h"

static int alloc(predictor *p, hs_graph *g, hs_error *err)
{
	size_t n = (size_t)(g->n_configs ? g->n_configs : 1);

	memset(p, 0, sizeof *p);
	p->n = g->n_configs;
	p->record.tau = p->record.tau_tiebroken = p->record.opa = NAN;
	p->calib_factor = NAN;
	p->score = malloc(n * sizeof *p->score);
	p->rank = malloc(n * sizeof *p->rank);
	p->tied = malloc(n);
	if (!p->score || !p->rank || !p->tied) {
		predictor_free(p);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory predicting", g->name);
	}
	return 0;
}

/* The analytic estimate's times: times the median ratio of measured
 * runtime to estimate over the configs of `use` (NULL: all) where both are
 * positive, when the graph has measured runtimes and there is one. */
static int calibrate_estimate(predictor *p, const hs_graph *g, const uint8_t *use, hs_error *err)
{
	double *lr = malloc((size_t)(p->n ? p->n : 1) * sizeof *lr), f = 1;
	int64_t m = 0;

	if (!lr)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory predicting", g->name);
	for (int64_t i = 0; g->labeled && i < p->n; i++)
		if ((!use || use[i]) && g->runtime[i] > 0 && p->score[i] > 0)
			lr[m++] = log(g->runtime[i] / p->score[i]);
	if (m > 0) {
		f = exp(hs_median(lr, (size_t)m));
		p->time_kind = PRED_TIME_CALIBRATED;
		p->calib_factor = f;
		p->calib_configs = m;
	}
	free(lr);
	for (int64_t i = 0; i < p->n; i++)
		p->time[i] = p->score[i] * f;
	return 0;
}

/* Ranks, times (calibrated on `use`) and the record over `check`. */
static int finish(predictor *p, hs_graph *g, const uint8_t *use, const uint8_t *check, hs_error *err)
{
	if (metrics_ranks(p->score, (size_t)p->n, p->rank, p->tied) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory predicting", g->name);
	for (int64_t i = 0; i < p->n; i++)
		p->n_tied += p->tied[i];
	if (g->labeled && metrics_track_record(p->score, g->runtime, check, (size_t)p->n, &p->record) < 0)
		return hs_fail(err, HS_ENOMEM, "%s: out of memory predicting", g->name);
	if (p->time_kind == PRED_TIME_NS) {
		p->time = malloc((size_t)(p->n ? p->n : 1) * sizeof *p->time);
		if (!p->time)
			return hs_fail(err, HS_ENOMEM, "%s: out of memory predicting", g->name);
		return calibrate_estimate(p, g, use, err);
	}
	p->time_kind = PRED_TIME_SCORE;
	if (!g->labeled)
		return 0;
	calib c;

	if (calib_fit(p->score, g->runtime, use, p->n, &c, err) < 0)
		return -1;
	if (c.ok) {
		p->time = malloc((size_t)(p->n ? p->n : 1) * sizeof *p->time);
		if (!p->time) {
			calib_free(&c);
			return hs_fail(err, HS_ENOMEM, "%s: out of memory predicting", g->name);
		}
		for (int64_t i = 0; i < p->n; i++)
			p->time[i] = calib_apply(&c, p->score[i]);
		p->time_kind = PRED_TIME_CALIBRATED;
		p->calib_configs = c.fitted;
	}
	calib_free(&c);
	return 0;
}

int predictor_from_model(predictor *p, const hs_model *m, hs_graph *g, hs_error *err)
{
	if (alloc(p, g, err) < 0)
		return -1;
	snprintf(p->label, sizeof p->label, "%s", model_describe(m));
	p->time_kind = m ? PRED_TIME_SCORE : PRED_TIME_NS;
	if (model_predict_configs(m, g, p->score, err) < 0 || finish(p, g, NULL, NULL, err) < 0) {
		predictor_free(p);
		return -1;
	}
	return 0;
}

int predictor_from_fit(predictor *p, hs_graph *g, double fraction, uint64_t seed, hs_error *err)
{
	fit_result r;
	uint8_t *held;

	if (alloc(p, g, err) < 0)
		return -1;
	p->trained = malloc((size_t)(p->n ? p->n : 1));
	held = malloc((size_t)(p->n ? p->n : 1));
	if (!p->trained || !held) {
		free(held);
		predictor_free(p);
		return hs_fail(err, HS_ENOMEM, "%s: out of memory predicting", g->name);
	}
	p->time_kind = PRED_TIME_SCORE;
	p->fit_fraction = fraction;
	if (fit_heldout(g, fraction, seed, &r, p->score, p->trained, err) < 0)
		goto fail;
	for (int64_t i = 0; i < p->n; i++)
		held[i] = !p->trained[i];
	p->n_trained = r.n_train;
	snprintf(p->label, sizeof p->label, "fit on %g%% (%lld configs%s), %s", fraction * 100,
		 (long long)r.n_train, r.capped ? ", capped" : "", fit_model_name(&r));
	if (finish(p, g, p->trained, held, err) < 0)
		goto fail;
	free(held);
	return 0;
fail:
	free(held);
	predictor_free(p);
	return -1;
}

void predictor_free(predictor *p)
{
	free(p->score);
	free(p->time);
	free(p->rank);
	free(p->tied);
	free(p->trained);
	memset(p, 0, sizeof *p);
}

static const char *num(char *b, size_t cap, double v)
{
	if (isnan(v))
		snprintf(b, cap, "n/a");
	else
		snprintf(b, cap, "%.3f", v);
	return b;
}

void predictor_record_text(const predictor *p, char *buf, size_t cap)
{
	const metrics_record *r = &p->record;
	char a[16], b[16], c[16];

	if (r->n < 2) {
		snprintf(buf, cap, "no measured runtimes to check against");
		return;
	}
	if (isnan(r->tau)) {
		int same = 1;

		for (int64_t i = 1; i < p->n && same; i++)
			same = p->score[i] == p->score[0];
		snprintf(buf, cap, "tau n/a, OPA n/a on %lld %sconfigs: %s", (long long)r->n,
			 p->trained ? "held-out " : "measured ",
			 same ? "every config gets the same score" : "their runtimes or scores are all equal");
		return;
	}
	snprintf(buf, cap, "tau %s (ties broken at random %s), OPA %s on %lld %sconfigs", num(a, sizeof a, r->tau),
		 num(b, sizeof b, r->tau_tiebroken), num(c, sizeof c, r->opa), (long long)r->n,
		 p->trained ? "held-out " : "measured ");
}

const char *predictor_time_kind(const predictor *p)
{
	if (p->time_kind == PRED_TIME_NS)
		return "estimate";
	if (p->time_kind == PRED_TIME_CALIBRATED)
		return isnan(p->calib_factor) ? "learned" : "calibrated";
	return NULL;
}

int predictor_time_ns(const predictor *p, const hs_graph *g)
{
	return p->time && (p->time_kind == PRED_TIME_NS || g->kind != HS_KIND_TILE);
}

