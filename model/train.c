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

/* Mean validation tau, ties broken at random (and tile top-5 error), of
 * the head. */
static void validate(const nn_head *hd, prep **gs, int n, const split *sp, prep **valid,
		     int n_valid, nn_ws *ws, double *tau_out, double *top5_out)
{
	double tau_sum = 0, top_sum = 0;
	int tau_n = 0, top_n = 0;
	int total = valid ? n_valid : n;

	for (int i = 0; i < total; i++) {
		const prep *p = valid ? valid[i] : gs[i];
		int64_t m = valid ? p->n_uniq : sp[i].n_valid;
		int64_t *cfg;
		double *s, *y;

		if (m < 2)
			continue;
		cfg = malloc((size_t)m * sizeof *cfg);
		s = malloc((size_t)m * sizeof *s);
		y = malloc((size_t)m * sizeof *y);
		if (cfg && s && y) {
			for (int64_t j = 0; j < m; j++) {
				int64_t u = valid ? j : sp[i].valid[j];

				cfg[j] = p->uniq_rep[u];
				y[j] = p->uniq_runtime[u];
			}
			if (nn_score(hd, p, cfg, m, s, ws) == 0) {
				double t = metrics_kendall_tau_tiebroken(s, y, (size_t)m);

				if (!isnan(t)) {
					tau_sum += t;
					tau_n++;
				}
				if (p->kind == HS_KIND_TILE) {
					double e = metrics_topk_error(s, y, (size_t)m, 5);

					if (!isnan(e)) {
						top_sum += e;
						top_n++;
					}
				}
			}
		}
		free(cfg);
		free(s);
		free(y);
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
static int head_dims(const trainer *tr, nn_dims *d, hs_error *err)
{
	const train_opts *o = tr->o;
	prep **gs = tr->gs;
	int kind = tr->kind;
	const char *bad;

	memset(d, 0, sizeof *d);
	d->kind = kind;
	d->fin = gs[0]->feat_width;
	d->de = o->opemb;
	d->h = o->hidden;
	d->layers = o->layers;
	d->r = o->readout;
	d->cfg_hops = o->cfg_hops;
	d->ncfw = kind != HS_KIND_TILE ? gs[0]->ncf_width : 0;
	d->ccols = kind != HS_KIND_TILE ? prep_ccols(d->ncfw) : 0;
	d->ctw = kind == HS_KIND_TILE ? gs[0]->config_width : 0;
	if ((bad = nn_dims_check(d)) != NULL)
		return hs_fail(err, HS_EUSAGE, "%s: unusable model dimensions (%s)", gs[0]->name, bad);
	for (int i = 0; i < tr->n + tr->n_valid; i++) {
		const prep *p = i < tr->n ? gs[i] : tr->valid[i - tr->n];

		if ((int)p->kind != kind || p->feat_width != d->fin ||
		    (kind != HS_KIND_TILE ? p->ncf_width != d->ncfw : p->config_width != d->ctw))
			return hs_fail(err, HS_EUSAGE,
				       "%s: feature widths (node %d, config %d) differ from %s's (%d, %d); "
				       "one model needs one width",
				       p->name, p->feat_width,
				       kind != HS_KIND_TILE ? p->ncf_width : p->config_width, gs[0]->name,
				       d->fin, kind != HS_KIND_TILE ? d->ncfw : d->ctw);
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

/* The gate (nn.h) that ranks the validation configs best, from 1 down to
 * 0 (the analytic estimate alone); ties keep the smaller one.  Without
 * validation scores the gate stays 1. */
static void choose_gate(trainer *tr, train_report *rep)
{
	static const float gates[] = {1, 0.5f, 0.25f, 0};
	float *gate = &tr->hd->theta[tr->hd->o.gate], best = 1;
	double best_tau = -INFINITY;

	for (size_t i = 0; i < sizeof gates / sizeof gates[0]; i++) {
		double tau, top5;

		*gate = gates[i];
		validate(tr->hd, tr->gs, tr->n, tr->sp, tr->valid, tr->n_valid, tr->workers[0].ws, &tau, &top5);
		if (!isnan(tau) && tau >= best_tau) {
			best_tau = tau;
			best = gates[i];
		}
	}
	*gate = best;
	rep->gate = best;
	if (best_tau > -INFINITY)
		rep->best_tau = best_tau;
}

nn_head *train_head(prep **gs, int n, prep **valid, int n_valid, int kind, const train_opts *o,
		    train_report *rep, hs_error *err)
{
	trainer tr = {
		.o = o, .gs = gs, .valid = valid, .n = n, .n_valid = n_valid, .kind = kind,
		.threads = o->threads < 1 ? 1 : o->threads,
		.g = hs_splitmix_seed(o->seed * 0x100000001b3ULL + (uint64_t)kind),
		.best_tau = -INFINITY,
	};
	nn_head *hd;
	nn_dims d;
	double t_total = 0;

	memset(rep, 0, sizeof *rep);
	rep->best_tau = NAN;
	if (n == 0) {
		hs_fail(err, HS_EUSAGE, "no labeled %s files to train on", kind_word(kind));
		return NULL;
	}
	if (head_dims(&tr, &d, err) < 0)
		return NULL;
	tr.hd = nn_head_new(&d, o->seed);
	if (!tr.hd || compute_stats(tr.hd, gs, n) < 0)
		goto oom;
	for (int i = 0; i < n + n_valid; i++)
		prep_standardize(i < n ? gs[i] : valid[i - n], tr.hd->mean, tr.hd->sd, tr.hd->cmean,
				 tr.hd->csd);
	if (make_splits(&tr, rep) < 0 || alloc_state(&tr) < 0)
		goto oom;
	tr.n_batches = count_batches(&tr);
	if (tr.n_batches == 0) {
		hs_fail(err, HS_EUSAGE, "the %s files have fewer than 2 distinct configs to rank",
			kind_word(kind));
		goto fail;
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
	memcpy(tr.hd->theta, tr.best, tr.P * sizeof *tr.best);
	choose_gate(&tr, rep);
	rep->seconds_per_epoch = o->epochs > 0 ? t_total / o->epochs : 0;
	goto done;
oom:
	hs_fail(err, HS_ENOMEM, "out of memory while training");
fail:
	nn_head_free(tr.hd);
	tr.hd = NULL;
done:
	hd = tr.hd;
	trainer_free(&tr);
	return hd;
}
