/* train.c - Adam over batches of configs, threads, validation, best epoch. */
#include "model/train.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loader/hlo.h"
#include "model/metrics.h"
#include "model/rng.h"

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
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

/* Mean validation tau (and tile top-5 error) of the head. */
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
				double t = metrics_kendall_tau(s, y, (size_t)m);

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

nn_head *train_head(prep **gs, int n, prep **valid, int n_valid, int kind, const train_opts *o,
		    train_report *rep, hs_error *err)
{
	nn_dims d = {0};
	nn_head *hd = NULL;
	split *sp = NULL;
	rng g = rng_seed(o->seed * 0x100000001b3ULL + (uint64_t)kind);
	float *m1 = NULL, *m2 = NULL, *best = NULL, *gsum = NULL, *gbuf = NULL;
	task *tasks = NULL;
	worker *workers = NULL;
	pthread_t *tid = NULL;
	int64_t *order = NULL;
	const char *bad;
	int threads = o->threads < 1 ? 1 : o->threads, ok = 0;
	double best_tau = -INFINITY, t_total = 0;
	size_t P;
	int64_t step = 0, total_steps;

	memset(rep, 0, sizeof *rep);
	rep->best_tau = NAN;
	if (n == 0) {
		hs_fail(err, HS_EUSAGE, "no labeled %s files to train on", kind == HS_KIND_TILE ? "tile" : "layout");
		return NULL;
	}
	d.kind = kind;
	d.fin = gs[0]->feat_width;
	d.de = o->opemb;
	d.h = o->hidden;
	d.layers = o->layers;
	d.r = o->readout;
	d.cfg_hops = o->cfg_hops;
	d.ncfw = kind == HS_KIND_LAYOUT ? gs[0]->ncf_width : 0;
	d.ccols = kind == HS_KIND_LAYOUT ? prep_ccols(d.ncfw) : 0;
	d.ctw = kind == HS_KIND_TILE ? gs[0]->config_width : 0;
	if ((bad = nn_dims_check(&d)) != NULL) {
		hs_fail(err, HS_EUSAGE, "%s: unusable model dimensions (%s)", gs[0]->name, bad);
		return NULL;
	}
	for (int i = 0; i < n + n_valid; i++) {
		const prep *p = i < n ? gs[i] : valid[i - n];

		if ((int)p->kind != kind || p->feat_width != d.fin ||
		    (kind == HS_KIND_LAYOUT ? p->ncf_width != d.ncfw : p->config_width != d.ctw)) {
			hs_fail(err, HS_EUSAGE,
				"%s: feature widths (node %d, config %d) differ from %s's (%d, %d); "
				"one model needs one width",
				p->name, p->feat_width, kind == HS_KIND_LAYOUT ? p->ncf_width : p->config_width,
				gs[0]->name, d.fin, kind == HS_KIND_LAYOUT ? d.ncfw : d.ctw);
			return NULL;
		}
	}
	hd = nn_head_new(&d, o->seed);
	if (!hd || compute_stats(hd, gs, n) < 0)
		goto oom;
	for (int i = 0; i < n + n_valid; i++)
		prep_standardize(i < n ? gs[i] : valid[i - n], hd->mean, hd->sd, hd->cmean, hd->csd);

	/* Splits. */
	sp = calloc((size_t)n, sizeof *sp);
	if (!sp)
		goto oom;
	for (int i = 0; i < n; i++) {
		int64_t u = gs[i]->n_uniq, nv = 0;
		int64_t *perm = malloc((size_t)(u ? u : 1) * sizeof *perm);

		if (!perm)
			goto oom;
		for (int64_t j = 0; j < u; j++)
			perm[j] = j;
		rng_shuffle(&g, perm, u);
		if (!valid && u >= MIN_VALID_GRAPH && o->valid_fraction > 0) {
			nv = (int64_t)ceil(o->valid_fraction * (double)u);
			if (nv < 2)
				nv = 2;
		}
		sp[i].valid = perm;
		sp[i].n_valid = nv;
		sp[i].train = perm + nv;
		sp[i].n_train = u - nv;
		rep->configs += gs[i]->n_configs;
		rep->distinct_configs += u;
	}
	rep->graphs = n;

	P = hd->o.total;
	m1 = calloc(P, sizeof *m1);
	m2 = calloc(P, sizeof *m2);
	best = malloc(P * sizeof *best);
	gsum = malloc(P * sizeof *gsum);
	gbuf = calloc(P * (size_t)o->tasks, sizeof *gbuf);
	tasks = calloc((size_t)o->tasks, sizeof *tasks);
	workers = calloc((size_t)threads, sizeof *workers);
	tid = calloc((size_t)threads, sizeof *tid);
	if (!m1 || !m2 || !best || !gsum || !gbuf || !tasks || !workers || !tid)
		goto oom;
	memcpy(best, hd->theta, P * sizeof *best);
	for (int t = 0; t < threads; t++) {
		workers[t].ws = nn_ws_new();
		if (!workers[t].ws)
			goto oom;
	}

	/* Batches of one epoch: (graph, offset) pairs. */
	int64_t n_batches = 0;
	for (int i = 0; i < n; i++) {
		int64_t b = (sp[i].n_train + o->batch - 1) / o->batch;

		if (sp[i].n_train < 2)
			b = 0;
		n_batches += b < o->max_batches ? b : o->max_batches;
	}
	if (n_batches == 0) {
		hs_fail(err, HS_EUSAGE, "the %s files have fewer than 2 distinct configs to rank",
			kind == HS_KIND_TILE ? "tile" : "layout");
		goto fail;
	}
	order = malloc((size_t)n_batches * 2 * sizeof *order);
	if (!order)
		goto oom;
	total_steps = (int64_t)o->epochs * ((n_batches + o->tasks - 1) / o->tasks);

	for (int epoch = 1; epoch <= o->epochs; epoch++) {
		double t0 = now_seconds(), loss_sum = 0, tau, top5;
		int64_t loss_n = 0, nb = 0;
		train_progress pr;

		for (int i = 0; i < n; i++) {
			int64_t b = (sp[i].n_train + o->batch - 1) / o->batch;

			if (sp[i].n_train < 2)
				continue;
			rng_shuffle(&g, sp[i].train, sp[i].n_train);
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
			int64_t j = (int64_t)rng_below(&g, (uint64_t)i + 1), a = order[2 * i], b = order[2 * i + 1];

			order[2 * i] = order[2 * j];
			order[2 * i + 1] = order[2 * j + 1];
			order[2 * j] = a;
			order[2 * j + 1] = b;
		}
		for (int64_t first = 0; first < nb; first += o->tasks) {
			int nt = (int)(nb - first < o->tasks ? nb - first : o->tasks);
			int used_threads = threads < nt ? threads : nt;
			double lr, b1t, b2t, gn = 0, scale = 1;

			for (int t = 0; t < nt; t++) {
				int gi = (int)order[2 * (first + t)];
				int64_t off = order[2 * (first + t) + 1], len = sp[gi].n_train - off;

				if (len > o->batch)
					len = o->batch;
				tasks[t] = (task){gs[gi], sp[gi].train + off, len, gbuf + (size_t)t * P, 0};
				memset(tasks[t].grad, 0, P * sizeof *gbuf);
			}
			for (int t = 0; t < used_threads; t++) {
				workers[t].hd = hd;
				workers[t].tasks = tasks;
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
					if (pthread_create(&tid[t], NULL, run_worker, &workers[t]) != 0)
						break;
					started = t;
				}
				/* Threads that could not start: run their share here. */
				for (int t = started + 1; t < used_threads; t++)
					run_worker(&workers[t]);
				run_worker(&workers[0]);
				for (int t = 1; t <= started; t++)
					pthread_join(tid[t], NULL);
			}
			for (int t = 0; t < used_threads; t++)
				if (workers[t].failed)
					goto oom;
			/* Sum in task order: deterministic whatever the thread count. */
			memset(gsum, 0, P * sizeof *gsum);
			for (int t = 0; t < nt; t++) {
				const float *gb = tasks[t].grad;

				for (size_t i = 0; i < P; i++)
					gsum[i] += gb[i];
				loss_sum += tasks[t].loss;
				loss_n++;
			}
			for (size_t i = 0; i < P; i++) {
				gsum[i] /= (float)nt;
				gn += (double)gsum[i] * gsum[i];
			}
			gn = sqrt(gn);
			if (gn > CLIP_NORM)
				scale = CLIP_NORM / gn;
			step++;
			lr = o->lr * (0.1 + 0.9 * 0.5 * (1 + cos(M_PI * (double)(step - 1) / (double)total_steps)));
			b1t = 1 - pow(0.9, (double)step);
			b2t = 1 - pow(0.999, (double)step);
			for (size_t i = 0; i < P; i++) {
				float gi = gsum[i] * (float)scale;

				m1[i] = 0.9f * m1[i] + 0.1f * gi;
				m2[i] = 0.999f * m2[i] + 0.001f * gi * gi;
				hd->theta[i] -= (float)(lr * ((m1[i] / b1t) / (sqrt(m2[i] / b2t) + 1e-8) +
							      o->weight_decay * hd->theta[i]));
			}
		}
		validate(hd, gs, n, sp, valid, n_valid, workers[0].ws, &tau, &top5);
		pr.head = kind == HS_KIND_TILE ? "tile" : "layout";
		pr.epoch = epoch;
		pr.epochs = o->epochs;
		pr.loss = loss_n ? loss_sum / (double)loss_n : NAN;
		pr.valid_tau = tau;
		pr.valid_top5 = top5;
		pr.best = 0;
		/* Without validation scores every epoch counts as better: the last wins. */
		if (isnan(tau) ? best_tau == -INFINITY : tau > best_tau) {
			if (!isnan(tau))
				best_tau = tau;
			memcpy(best, hd->theta, P * sizeof *best);
			rep->best_epoch = epoch;
			rep->best_tau = tau;
			pr.best = 1;
		}
		pr.seconds = now_seconds() - t0;
		t_total += pr.seconds;
		if (o->progress)
			o->progress(o->ctx, &pr);
	}
	memcpy(hd->theta, best, P * sizeof *best);
	rep->seconds_per_epoch = o->epochs > 0 ? t_total / o->epochs : 0;
	ok = 1;
	goto done;
oom:
	hs_fail(err, HS_EDATA, "out of memory while training");
fail:
	nn_head_free(hd);
	hd = NULL;
done:
	if (sp)
		for (int i = 0; i < n; i++)
			free(sp[i].valid);
	free(sp);
	free(m1);
	free(m2);
	free(best);
	free(gsum);
	free(gbuf);
	free(tasks);
	if (workers)
		for (int t = 0; t < threads; t++)
			nn_ws_free(workers[t].ws);
	free(workers);
	free(tid);
	free(order);
	(void)ok;
	return hd;
}
