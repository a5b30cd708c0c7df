/* train.c - Adam over batches of configs, threads, validation, best epoch. */
#include "model/train.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "loader/hlo.h"
#include "model/metrics.h"

#define CLIP_NORM 5.0
#define MIN_VALID_GRAPH 10

void train_defaults(train_opts *o)
{
	memset(o, 0, sizeof *o);
	o->epochs = 40;
	o->batch = 32;
	o->tasks = 4;
	o->max_batches = 12;
	o->lr = 0.002;
	o->weight_decay = 1e-4;
	o->loss = NN_LOSS_HINGE;
	o->hidden = 64;
	o->layers = 2;
	o->readout = 32;
	o->opemb = 8;
	o->cfg_hops = 3;
	o->seed = 1;
	o->threads = 1;
	o->valid_fraction = 0.15;
}

void train_prep_opts(const nn_dims *d, prep_opts *po)
{
	memset(po, 0, sizeof *po);
	po->radius = d->layers;
	po->cfg_hops = d->cfg_hops;
	po->prior = 1;
}

/* Node statistics of t(x) over every encoder node of every graph, and the
 * tile config statistics. */
static int compute_stats(nn_head *hd, prep **gs, int n)
{
	int w = hd->d.fin, cw = hd->d.ctw;
	double *s1 = calloc((size_t)w + (size_t)cw + 1, sizeof *s1);
	double *s2 = calloc((size_t)w + (size_t)cw + 1, sizeof *s2);
	double cnt = 0, ccnt = 0;

	if (!s1 || !s2) {
		free(s1);
		free(s2);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const prep *p = gs[i];

		for (int64_t v = 0; v < p->n; v++) {
			const float *x = p->x + (size_t)v * (size_t)w;

			for (int j = 0; j < w; j++) {
				s1[j] += x[j];
				s2[j] += (double)x[j] * x[j];
			}
			cnt++;
		}
		if (hd->d.kind == HS_KIND_TILE)
			for (int64_t c = 0; c < p->n_configs; c++) {
				const float *x = p->cfg + (size_t)c * (size_t)cw;

				for (int j = 0; j < cw; j++) {
					s1[w + j] += x[j];
					s2[w + j] += (double)x[j] * x[j];
				}
				ccnt++;
			}
	}
	for (int j = 0; j < w; j++) {
		double m = cnt > 0 ? s1[j] / cnt : 0, var = cnt > 0 ? s2[j] / cnt - m * m : 0;

		hd->mean[j] = (float)m;
		hd->sd[j] = var > 1e-12 ? (float)sqrt(var) : 1.0f;
	}
	for (int j = 0; hd->d.kind == HS_KIND_TILE && j < cw; j++) {
		double m = ccnt > 0 ? s1[w + j] / ccnt : 0, var = ccnt > 0 ? s2[w + j] / ccnt - m * m : 0;

		hd->cmean[j] = (float)m;
		hd->csd[j] = var > 1e-12 ? (float)sqrt(var) : 1.0f;
	}
	free(s1);
	free(s2);
	return 0;
}

/* Per graph: the distinct configs used for training and for validation. */
typedef struct split {
	int64_t *train, n_train;
	int64_t *valid, n_valid;
} split;

typedef struct task {
	const prep *p;
	const int64_t *uniq;
	int64_t n;
	float *grad;
	double loss;
} task;

typedef struct worker {
	const nn_head *hd;
	task *tasks;
	int n_tasks, id, stride, loss;
	nn_ws *ws;
	int failed;
} worker;

static void *run_worker(void *arg)
{
	worker *w = arg;

	for (int i = w->id; i < w->n_tasks; i += w->stride) {
		task *t = &w->tasks[i];

		t->loss = nn_loss_grad(w->hd, t->p, t->uniq, t->n, w->loss, t->grad, w->ws);
		if (isnan(t->loss))
			w->failed = 1;
	}
	return NULL;
}

/* The head's tau (ties broken at random) on p's distinct configs uniq[0..m)
 * (all of them when uniq is NULL), and its top-5 error for tile (*top5,
 * else NAN).  NAN when undefined or out of memory. */
static double graph_tau(const nn_head *hd, const prep *p, const int64_t *uniq, int64_t m, nn_ws *ws,
			double *top5)
{
	int64_t *cfg = malloc((size_t)(m > 0 ? m : 1) * sizeof *cfg);
	double *s = malloc((size_t)(m > 0 ? m : 1) * sizeof *s), *y = malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
	double t = NAN;

	*top5 = NAN;
	if (m >= 2 && cfg && s && y) {
		for (int64_t j = 0; j < m; j++) {
			int64_t u = uniq ? uniq[j] : j;

			cfg[j] = p->uniq_rep[u];
			y[j] = p->uniq_runtime[u];
		}
		if (nn_score(hd, p, cfg, m, s, ws) == 0) {
			t = metrics_kendall_tau_tiebroken(s, y, (size_t)m);
			if (p->kind == HS_KIND_TILE)
				*top5 = metrics_topk_error(s, y, (size_t)m, 5);
		}
	}
	free(cfg);
	free(s);
	free(y);
	return t;
}

/* Mean validation tau, ties broken at random (and tile top-5 error), of
 * the head: on the valid graphs, else on each graph's held-out configs. */
static void validate(const nn_head *hd, prep **gs, int n, const split *sp, prep **valid,
		     int n_valid, nn_ws *ws, double *tau_out, double *top5_out)
{
	double tau_sum = 0, top_sum = 0;
	int tau_n = 0, top_n = 0;

	for (int i = 0; i < (valid ? n_valid : n); i++) {
		const prep *p = valid ? valid[i] : gs[i];
		double e, t = graph_tau(hd, p, valid ? NULL : sp[i].valid, valid ? p->n_uniq : sp[i].n_valid,
					ws, &e);

		if (!isnan(t)) {
			tau_sum += t;
			tau_n++;
		}
		if (!isnan(e)) {
			top_sum += e;
			top_n++;
		}
	}
	*tau_out = tau_n ? tau_sum / tau_n : NAN;
	*top5_out = top_n ? top_sum / top_n : NAN;
}

/* ---- one training run ------------------------------------------------ */

/* Everything one train_head() call holds. */
typedef struct trainer {
	const train_opts *o;
	prep **gs, **valid;
	int n, n_valid, kind, threads;
	int fold, folds;      /* the fold of folds this run trains (0: the head itself) */
	hs_splitmix g;        /* splits, then every epoch's shuffles */
	nn_head *hd;
	split *sp;            /* [n] */
	size_t P;             /* parameters */
	float *m1, *m2;       /* [P] Adam moments */
	float *best;          /* [P] parameters of the best epoch so far */
	float *gsum;          /* [P] the step's mean gradient */
	float *gbuf;          /* [o->tasks * P] one gradient per task */
	task *tasks;          /* [o->tasks] */
	worker *workers;      /* [threads], each with its workspace */
	pthread_t *tid;       /* [threads] */
	int64_t *order;       /* [2 * n_batches] (graph, offset) of an epoch's batches */
	int64_t n_batches, step, total_steps;
	double best_tau;
} trainer;

static const char *kind_word(int kind)
{
	return kind == HS_KIND_TILE ? "tile" : "layout";
}

/* The head's dimensions from the options and the first graph; every graph
 * (training and validation) must have the same feature widths. */
static int head_dims(prep **gs, int n, prep **valid, int n_valid, int kind, const train_opts *o, nn_dims *d,
		     hs_error *err)
{
	const char *bad;

	memset(d, 0, sizeof *d);
	d->kind = kind;
	d->fin = gs[0]->feat_width;
	d->de = o->opemb;
	d->h = o->hidden;
	d->layers = o->layers;
	d->r = o->readout;
	d->cfg_hops = o->cfg_hops;
	d->ncfw = kind == HS_KIND_LAYOUT ? gs[0]->ncf_width : 0;
	d->ccols = kind == HS_KIND_LAYOUT ? prep_ccols(d->ncfw) : 0;
	d->ctw = kind == HS_KIND_TILE ? gs[0]->config_width : 0;
	if ((bad = nn_dims_check(d)) != NULL)
		return hs_fail(err, HS_EUSAGE, "%s: unusable model dimensions (%s)", gs[0]->name, bad);
	for (int i = 0; i < n + n_valid; i++) {
		const prep *p = i < n ? gs[i] : valid[i - n];

		if ((int)p->kind != kind || p->feat_width != d->fin ||
		    (kind == HS_KIND_LAYOUT ? p->ncf_width != d->ncfw : p->config_width != d->ctw))
			return hs_fail(err, HS_EUSAGE,
				       "%s: feature widths (node %d, config %d) differ from %s's (%d, %d); "
				       "one model needs one width",
				       p->name, p->feat_width,
				       kind == HS_KIND_LAYOUT ? p->ncf_width : p->config_width, gs[0]->name,
				       d->fin, kind == HS_KIND_LAYOUT ? d->ncfw : d->ctw);
	}
	return 0;
}

/* Holds out every graph's validation configs (none with `valid` graphs);
 * counts the graphs and configs into rep.  -1 when out of memory. */
static int make_splits(trainer *tr, train_report *rep)
{
	const train_opts *o = tr->o;

	tr->sp = calloc((size_t)tr->n, sizeof *tr->sp);
	if (!tr->sp)
		return -1;
	for (int i = 0; i < tr->n; i++) {
		int64_t u = tr->gs[i]->n_uniq, nv = 0;
		int64_t *perm = malloc((size_t)(u ? u : 1) * sizeof *perm);

		if (!perm)
			return -1;
		for (int64_t j = 0; j < u; j++)
			perm[j] = j;
		hs_splitmix_shuffle(&tr->g, perm, u);
		if (!tr->valid && u >= MIN_VALID_GRAPH && o->valid_fraction > 0) {
			nv = (int64_t)ceil(o->valid_fraction * (double)u);
			if (nv < 2)
				nv = 2;
		}
		tr->sp[i].valid = perm;
		tr->sp[i].n_valid = nv;
		tr->sp[i].train = perm + nv;
		tr->sp[i].n_train = u - nv;
		rep->configs += tr->gs[i]->n_configs;
		rep->distinct_configs += u;
	}
	rep->graphs = tr->n;
	return 0;
}

/* The optimizer state, the gradient buffers and the workers.  -1 when out
 * of memory. */
static int alloc_state(trainer *tr)
{
	size_t P = tr->hd->o.total, tasks = (size_t)tr->o->tasks, threads = (size_t)tr->threads;

	tr->P = P;
	tr->m1 = calloc(P, sizeof *tr->m1);
	tr->m2 = calloc(P, sizeof *tr->m2);
	tr->best = malloc(P * sizeof *tr->best);
	tr->gsum = malloc(P * sizeof *tr->gsum);
	tr->gbuf = calloc(P * tasks, sizeof *tr->gbuf);
	tr->tasks = calloc(tasks, sizeof *tr->tasks);
	tr->workers = calloc(threads, sizeof *tr->workers);
	tr->tid = calloc(threads, sizeof *tr->tid);
	if (!tr->m1 || !tr->m2 || !tr->best || !tr->gsum || !tr->gbuf || !tr->tasks || !tr->workers ||
	    !tr->tid)
		return -1;
	memcpy(tr->best, tr->hd->theta, P * sizeof *tr->best);
	for (int t = 0; t < tr->threads; t++) {
		tr->workers[t].ws = nn_ws_new();
		if (!tr->workers[t].ws)
			return -1;
	}
	return 0;
}

static void trainer_free(trainer *tr)
{
	if (tr->sp)
		for (int i = 0; i < tr->n; i++)
			free(tr->sp[i].valid);
	free(tr->sp);
	free(tr->m1);
	free(tr->m2);
	free(tr->best);
	free(tr->gsum);
	free(tr->gbuf);
	free(tr->tasks);
	if (tr->workers)
		for (int t = 0; t < tr->threads; t++)
			nn_ws_free(tr->workers[t].ws);
	free(tr->workers);
	free(tr->tid);
	free(tr->order);
}

/* Batches per epoch: up to max_batches per graph with 2 training configs. */
static int64_t count_batches(const trainer *tr)
{
	int64_t n_batches = 0;

	for (int i = 0; i < tr->n; i++) {
		int64_t b = (tr->sp[i].n_train + tr->o->batch - 1) / tr->o->batch;

		if (tr->sp[i].n_train < 2)
			b = 0;
		n_batches += b < tr->o->max_batches ? b : tr->o->max_batches;
	}
	return n_batches;
}

/* Shuffles every graph's training configs, lists the epoch's batches in
 * tr->order and shuffles their order.  Returns the batch count. */
static int64_t epoch_batches(trainer *tr)
{
	const train_opts *o = tr->o;
	int64_t *order = tr->order, nb = 0;

	for (int i = 0; i < tr->n; i++) {
		split *s = &tr->sp[i];
		int64_t b = (s->n_train + o->batch - 1) / o->batch;

		if (s->n_train < 2)
			continue;
		hs_splitmix_shuffle(&tr->g, s->train, s->n_train);
		if (b > o->max_batches)
			b = o->max_batches;
		for (int64_t j = 0; j < b; j++) {
			order[2 * nb] = i;
			order[2 * nb + 1] = j * o->batch;
			nb++;
		}
	}
	/* Shuffle batch order (pairs move together). */
	for (int64_t i = nb - 1; i > 0; i--) {
		int64_t j = (int64_t)hs_splitmix_below(&tr->g, (uint64_t)i + 1), a = order[2 * i], b = order[2 * i + 1];

		order[2 * i] = order[2 * j];
		order[2 * i + 1] = order[2 * j + 1];
		order[2 * j] = a;
		order[2 * j + 1] = b;
	}
	return nb;
}

/* The loss and gradient of batches order[first .. first + nt), one task
 * each, on up to tr->threads threads.  -1 when out of memory. */
static int run_tasks(trainer *tr, int64_t first, int nt)
{
	const train_opts *o = tr->o;
	int used_threads = tr->threads < nt ? tr->threads : nt;
	worker *workers = tr->workers;

	for (int t = 0; t < nt; t++) {
		int gi = (int)tr->order[2 * (first + t)];
		int64_t off = tr->order[2 * (first + t) + 1], len = tr->sp[gi].n_train - off;

		if (len > o->batch)
			len = o->batch;
		tr->tasks[t] = (task){tr->gs[gi], tr->sp[gi].train + off, len, tr->gbuf + (size_t)t * tr->P, 0};
		memset(tr->tasks[t].grad, 0, tr->P * sizeof *tr->gbuf);
	}
	for (int t = 0; t < used_threads; t++) {
		workers[t].hd = tr->hd;
		workers[t].tasks = tr->tasks;
		workers[t].n_tasks = nt;
		workers[t].id = t;
		workers[t].stride = used_threads;
		workers[t].loss = o->loss;
		workers[t].failed = 0;
	}
	if (used_threads == 1) {
		run_worker(&workers[0]);
	} else {
		int started = 0;

		for (int t = 1; t < used_threads; t++) {
			if (pthread_create(&tr->tid[t], NULL, run_worker, &workers[t]) != 0)
				break;
			started = t;
		}
		/* Threads that could not start: run their share here. */
		for (int t = started + 1; t < used_threads; t++)
			run_worker(&workers[t]);
		run_worker(&workers[0]);
		for (int t = 1; t <= started; t++)
			pthread_join(tr->tid[t], NULL);
	}
	for (int t = 0; t < used_threads; t++)
		if (workers[t].failed)
			return -1;
	return 0;
}

/* One Adam step on the mean gradient of the nt tasks (their losses are
 * added to *loss_sum, counted in *loss_n). */
static void adam_step(trainer *tr, int nt, double *loss_sum, int64_t *loss_n)
{
	const train_opts *o = tr->o;
	size_t P = tr->P;
	float *gsum = tr->gsum, *m1 = tr->m1, *m2 = tr->m2, *theta = tr->hd->theta;
	double lr, b1t, b2t, gn = 0, scale = 1;

	/* Sum in task order: deterministic whatever the thread count. */
	memset(gsum, 0, P * sizeof *gsum);
	for (int t = 0; t < nt; t++) {
		const float *gb = tr->tasks[t].grad;

		for (size_t i = 0; i < P; i++)
			gsum[i] += gb[i];
		*loss_sum += tr->tasks[t].loss;
		(*loss_n)++;
	}
	for (size_t i = 0; i < P; i++) {
		gsum[i] /= (float)nt;
		gn += (double)gsum[i] * gsum[i];
	}
	gn = sqrt(gn);
	if (gn > CLIP_NORM)
		scale = CLIP_NORM / gn;
	tr->step++;
	lr = o->lr * (0.1 + 0.9 * 0.5 * (1 + cos(M_PI * (double)(tr->step - 1) / (double)tr->total_steps)));
	b1t = 1 - pow(0.9, (double)tr->step);
	b2t = 1 - pow(0.999, (double)tr->step);
	for (size_t i = 0; i < P; i++) {
		float gi = gsum[i] * (float)scale;

		/* The gate is set after training (choose_gate); the prior's
		 * weight is not pulled towards 0. */
		if (i == tr->hd->o.gate)
			continue;
		m1[i] = 0.9f * m1[i] + 0.1f * gi;
		m2[i] = 0.999f * m2[i] + 0.001f * gi * gi;
		theta[i] -= (float)(lr * ((m1[i] / b1t) / (sqrt(m2[i] / b2t) + 1e-8) +
					  (i == tr->hd->o.pw ? 0 : o->weight_decay) * theta[i]));
	}
}

/* One pass over the epoch's batches, o->tasks per step.  The mean training
 * loss goes to *loss (NAN when no batch ran); -1 when out of memory. */
static int run_epoch(trainer *tr, double *loss)
{
	int64_t nb = epoch_batches(tr), loss_n = 0;
	double loss_sum = 0;

	for (int64_t first = 0; first < nb; first += tr->o->tasks) {
		int nt = (int)(nb - first < tr->o->tasks ? nb - first : tr->o->tasks);

		if (run_tasks(tr, first, nt) < 0)
			return -1;
		adam_step(tr, nt, &loss_sum, &loss_n);
	}
	*loss = loss_n ? loss_sum / (double)loss_n : NAN;
	return 0;
}

/* After an epoch: validates, keeps the parameters when the epoch is the
 * best so far, reports progress.  Returns the epoch's seconds. */
static double finish_epoch(trainer *tr, int epoch, double loss, double t0, train_report *rep)
{
	const train_opts *o = tr->o;
	train_progress pr;
	double tau, top5;

	validate(tr->hd, tr->gs, tr->n, tr->sp, tr->valid, tr->n_valid, tr->workers[0].ws, &tau, &top5);
	pr.head = kind_word(tr->kind);
	pr.fold = tr->fold;
	pr.folds = tr->folds;
	pr.epoch = epoch;
	pr.epochs = o->epochs;
	pr.loss = loss;
	pr.valid_tau = tau;
	pr.valid_top5 = top5;
	pr.best = 0;
	/* Without validation scores every epoch counts as better: the last wins. */
	if (isnan(tau) ? tr->best_tau == -INFINITY : tau > tr->best_tau) {
		if (!isnan(tau))
			tr->best_tau = tau;
		memcpy(tr->best, tr->hd->theta, tr->P * sizeof *tr->best);
		rep->best_epoch = epoch;
		rep->best_tau = tau;
		pr.best = 1;
	}
	pr.seconds = hs_now_seconds() - t0;
	if (o->progress)
		o->progress(o->ctx, &pr);
	return pr.seconds;
}

/* ---- the gate ---------------------------------------------------------- */

static const float gates[TRAIN_GATES] = {1, 0.5f, 0.25f, 0};

/* Sets gate i; with gate 0 the head ranks as the analytic estimate does
 * (pw 1, whatever it trained to). */
static void set_gate(nn_head *hd, int i, float pw)
{
	hd->theta[hd->o.gate] = gates[i];
	hd->theta[hd->o.pw] = gates[i] == 0 ? 1 : pw;
}

/* The taus of held-out graphs hs[0..n) with each gate: a row of
 * TRAIN_GATES per graph whose taus are all defined, appended to ev (*n_ev
 * rows), and their means into *f. */
static void held_out(nn_head *hd, prep **hs, int n, nn_ws *ws, double *ev, int *n_ev, train_fold *f)
{
	float pw = hd->theta[hd->o.pw];

	memset(f, 0, sizeof *f);
	for (int i = 0; i < n; i++) {
		double *t = ev + (size_t)*n_ev * TRAIN_GATES, e;
		int ok = 1;

		for (int g = 0; g < TRAIN_GATES; g++) {
			set_gate(hd, g, pw);
			t[g] = graph_tau(hd, hs[i], NULL, hs[i]->n_uniq, ws, &e);
			ok &= !isnan(t[g]);
		}
		if (!ok)
			continue;
		(*n_ev)++;
		if (!f->graphs++)
			f->name = hs[i]->name;
		for (int g = 0; g < TRAIN_GATES; g++)
			f->tau[g] += t[g];
	}
	for (int g = 0; g < TRAIN_GATES; g++)
		f->tau[g] = f->graphs ? f->tau[g] / f->graphs : NAN;
	set_gate(hd, 0, pw);
}

/* The largest gate that ranks no held-out graph worse than the estimate
 * alone (the last column) and ranks them better on average; 0 when none
 * does or nothing was held out. */
static float pick_gate(const double *ev, int n)
{
	for (int g = 0; g < TRAIN_GATES - 1; g++) {
		double gain = 0;
		int worse = 0;

		for (int i = 0; i < n; i++) {
			const double *t = ev + (size_t)i * TRAIN_GATES;

			worse += t[g] < t[TRAIN_GATES - 1];
			gain += t[g] - t[TRAIN_GATES - 1];
		}
		if (n && !worse && gain > 0)
			return gates[g];
	}
	return 0;
}

/* The head's final gate: chosen on the valid graphs when there are some,
 * else rep->gate (from the folds); then the validation tau with it. */
static int finish_gate(trainer *tr, train_report *rep)
{
	nn_head *hd = tr->hd;
	float pw = hd->theta[hd->o.pw];
	double tau, top5;
	int g = 0;

	if (tr->valid) {
		double *ev = malloc((size_t)(tr->n_valid ? tr->n_valid : 1) * TRAIN_GATES * sizeof *ev);
		int n_ev = 0;

		if (!ev)
			return -1;
		held_out(hd, tr->valid, tr->n_valid, tr->workers[0].ws, ev, &n_ev, &rep->fold[0]);
		rep->gate = pick_gate(ev, n_ev);
		rep->gate_from = TRAIN_GATE_VALID;
		free(ev);
	}
	while (gates[g] != (float)rep->gate)
		g++;
	set_gate(hd, g, pw);
	validate(hd, tr->gs, tr->n, tr->sp, tr->valid, tr->n_valid, tr->workers[0].ws, &tau, &top5);
	if (!isnan(tau))
		rep->best_tau = tau;
	return 0;
}

/* Trains hd (statistics set, preps standardized) on gs[0..n): the best
 * epoch's parameters, then (the head itself, fold 0) its gate.  -1 with
 * err set. */
static int run(nn_head *hd, prep **gs, int n, prep **valid, int n_valid, const train_opts *o, int fold,
	       int folds, train_report *rep, hs_error *err)
{
	trainer tr = {
		.o = o, .gs = gs, .valid = valid, .n = n, .n_valid = n_valid, .kind = hd->d.kind,
		.threads = o->threads < 1 ? 1 : o->threads, .fold = fold, .folds = folds, .hd = hd,
		.g = hs_splitmix_seed(o->seed * 0x100000001b3ULL + (uint64_t)hd->d.kind + 2 * (uint64_t)fold),
		.best_tau = -INFINITY,
	};
	double t_total = 0;
	int rc = -1;

	if (make_splits(&tr, rep) < 0 || alloc_state(&tr) < 0)
		goto oom;
	tr.n_batches = count_batches(&tr);
	if (tr.n_batches == 0) {
		hs_fail(err, HS_EUSAGE, "the %s files have fewer than 2 distinct configs to rank",
			kind_word(tr.kind));
		goto done;
	}
	tr.order = malloc((size_t)tr.n_batches * 2 * sizeof *tr.order);
	if (!tr.order)
		goto oom;
	tr.total_steps = (int64_t)o->epochs * ((tr.n_batches + o->tasks - 1) / o->tasks);
	for (int epoch = 1; epoch <= o->epochs; epoch++) {
		double t0 = hs_now_seconds(), loss;

		if (run_epoch(&tr, &loss) < 0)
			goto oom;
		t_total += finish_epoch(&tr, epoch, loss, t0, rep);
	}
	memcpy(hd->theta, tr.best, tr.P * sizeof *tr.best);
	rep->seconds_per_epoch = o->epochs > 0 ? t_total / o->epochs : 0;
	if (fold == 0 && finish_gate(&tr, rep) < 0)
		goto oom;
	rc = 0;
	goto done;
oom:
	hs_fail(err, HS_ENOMEM, "out of memory while training");
done:
	trainer_free(&tr);
	return rc;
}

/* The gate from folds of graphs left out: each fold's graphs are held
 * out of a shorter training (half the epochs, same options) and ranked
 * with every gate; rep->gate is what pick_gate makes of all of them, 0
 * when fewer than 2 graphs have distinct configs to rank.  -1 with err
 * set. */
static int gate_by_folds(const nn_head *hd, prep **gs, int n, const train_opts *o, train_report *rep,
			 hs_error *err)
{
	int64_t *elig = malloc((size_t)n * sizeof *elig);
	int *fold_of = malloc((size_t)n * sizeof *fold_of);
	prep **part = malloc((size_t)n * 2 * sizeof *part);
	double *ev = malloc((size_t)n * TRAIN_GATES * sizeof *ev), t0 = hs_now_seconds();
	nn_ws *ws = nn_ws_new();
	train_opts fo = *o;
	hs_splitmix g = hs_splitmix_seed(o->seed * 0x100000001b3ULL + 0x9e37);
	int ne = 0, k, n_ev = 0, rc = -1;

	rep->gate = 0;
	rep->gate_from = TRAIN_GATE_NONE;
	if (!elig || !fold_of || !part || !ev || !ws)
		goto oom;
	for (int i = 0; i < n; i++)
		if (gs[i]->n_uniq >= 2)
			elig[ne++] = i;
	if (ne < 2) {
		rc = 0;
		goto done;
	}
	hs_splitmix_shuffle(&g, elig, ne);
	k = ne < TRAIN_MAX_FOLDS ? ne : TRAIN_MAX_FOLDS;
	for (int i = 0; i < n; i++)
		fold_of[i] = -1;
	for (int j = 0; j < ne; j++)
		fold_of[elig[j]] = j % k;
	fo.epochs = (o->epochs + 1) / 2;
	for (int f = 0; f < k; f++) {
		nn_head *fh = nn_head_new(&hd->d, o->seed);
		train_report fr;
		int nt = 0, nh = 0;

		if (!fh)
			goto oom;
		memcpy(fh->mean, hd->mean, (size_t)hd->d.fin * sizeof *fh->mean);
		memcpy(fh->sd, hd->sd, (size_t)hd->d.fin * sizeof *fh->sd);
		if (hd->d.kind == HS_KIND_TILE) {
			memcpy(fh->cmean, hd->cmean, (size_t)hd->d.ctw * sizeof *fh->cmean);
			memcpy(fh->csd, hd->csd, (size_t)hd->d.ctw * sizeof *fh->csd);
		}
		for (int i = 0; i < n; i++)
			if (fold_of[i] == f)
				part[n + nh++] = gs[i];
			else
				part[nt++] = gs[i];
		memset(&fr, 0, sizeof fr);
		if (run(fh, part, nt, NULL, 0, &fo, f + 1, k, &fr, err) < 0) {
			nn_head_free(fh);
			goto done;
		}
		held_out(fh, part + n, nh, ws, ev, &n_ev, &rep->fold[f]);
		nn_head_free(fh);
	}
	rep->gate = pick_gate(ev, n_ev);
	rep->gate_from = TRAIN_GATE_FOLDS;
	rep->folds = k;
	rep->fold_epochs = fo.epochs;
	rep->fold_seconds = hs_now_seconds() - t0;
	rc = 0;
	goto done;
oom:
	hs_fail(err, HS_ENOMEM, "out of memory while training");
done:
	free(elig);
	free(fold_of);
	free(part);
	free(ev);
	nn_ws_free(ws);
	return rc;
}

nn_head *train_head(prep **gs, int n, prep **valid, int n_valid, int kind, const train_opts *o,
		    train_report *rep, hs_error *err)
{
	nn_head *hd;
	nn_dims d;

	memset(rep, 0, sizeof *rep);
	rep->best_tau = NAN;
	if (n == 0) {
		hs_fail(err, HS_EUSAGE, "no labeled %s files to train on", kind_word(kind));
		return NULL;
	}
	if (head_dims(gs, n, valid, n_valid, kind, o, &d, err) < 0)
		return NULL;
	hd = nn_head_new(&d, o->seed);
	if (!hd || compute_stats(hd, gs, n) < 0) {
		nn_head_free(hd);
		hs_fail(err, HS_ENOMEM, "out of memory while training");
		return NULL;
	}
	for (int i = 0; i < n + n_valid; i++)
		prep_standardize(i < n ? gs[i] : valid[i - n], hd->mean, hd->sd, hd->cmean, hd->csd);
	if ((!valid && gate_by_folds(hd, gs, n, o, rep, err) < 0) ||
	    run(hd, gs, n, valid, n_valid, o, 0, 0, rep, err) < 0) {
		nn_head_free(hd);
		return NULL;
	}
	return hd;
}
