/* folder.c - query_fold: a command over the session's graph, or over every
 * graph file of its folder.
 *
 * Over a folder, worker threads take the files in path order, open each with
 * only the parts the command reads (graph_open_parts), run the command's
 * part on it in a session of their own and hand the part over; the calling
 * thread folds the parts into the accumulator strictly in path order, so
 * the result is the same for any number of threads.  Workers stay at most
 * a window of 2 x threads files ahead of the fold: memory holds a few
 * graphs and a few parts whatever the folder's size.  The calling thread
 * also reports progress and stops the workers when asked to (they finish
 * the file they are on).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/plural.h"
#include "query/commands.h"

/* How often the progress callback runs (ms). */
#define PROGRESS_EVERY_MS 100
#define MAX_THREADS 256

struct slot {
	int ready;
	void *part; /* NULL when the file was skipped */
	char *why;  /* why it was skipped */
	int fatal;  /* 0, or the status of why when it is the query's failure,
	             * not the file's: out of memory, or rows it could not
	             * evaluate (a regular expression over its limits); the
	             * query stops with it */
};

struct fold {
	query_parser *p;
	const query_fold_ops *ops;
	const void *plan;
	unsigned parts;
	const ds_index *ix;
	pthread_mutex_t mu;
	pthread_cond_t more;  /* for workers: room in the window, or stop */
	pthread_cond_t ready; /* for the fold: a part is ready */
	size_t next_take, next_merge, window;
	struct slot *slots;   /* [window], file i in slot i % window */
	int stop;
	int idle;             /* workers waiting for room */
};

/* The message of an error about `path` without the path in front. */
static char *reason(const char *msg, const char *path)
{
	size_t np = strlen(path);

	if (strncmp(msg, path, np) == 0 && strncmp(msg + np, ": ", 2) == 0)
		msg += np + 2;
	return strdup(*msg ? msg : "could not be read");
}

/* Opens file i, runs the command's part on it; *part, or *why and *fatal
 * (struct slot). */
static void run_file(struct fold *f, query_session *ws, size_t i, void **part, char **why,
		     int *fatal)
{
	const ds_entry *e = &f->ix->entries[i];
	hs_error err;
	query_parser ctx;

	hs_error_clear(&err);
	if (e->error) {
		*why = strdup(e->error);
		return;
	}
	hs_graph *g = graph_open_parts(e->path, f->parts, &err);
	if (!g) {
		*why = reason(err.msg, e->path);
		*fatal = err.status == HS_ENOMEM ? HS_ENOMEM : 0;
		return;
	}
	query_graph_ref ref = {(int64_t)i, e->path, e->rel, e->collection, e->search, e->split};
	void *p = calloc(1, f->ops->part_size);
	int rc = -1;
	if (p) {
		query_session_bind(ws, g, &ref);
		query_parser_init(&ctx, ws, f->p->src, &err);
		rc = f->ops->run(&ctx, f->plan, p);
		if (rc == 0 && ctx.failed)
			rc = -1;
		if (rc == 0 && query_eval_failed(ws, &err) < 0) {
			rc = -1;
			*fatal = err.status;
		}
		query_parser_done(&ctx);
		query_session_bind(ws, NULL, NULL);
	} else {
		hs_fail(&err, HS_ENOMEM, "out of memory");
	}
	graph_free(g);
	if (rc < 0) {
		if (p)
			f->ops->free_part(p);
		free(p);
		*why = reason(err.msg[0] ? err.msg : "query failed", e->path);
		if (err.status == HS_ENOMEM)
			*fatal = HS_ENOMEM;
		return;
	}
	*part = p;
}

/* Signals go to the thread that runs the fold (its front end handles them),
 * never to a worker in the middle of a read. */
static void block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *worker(void *arg)
{
	struct fold *f = arg;
	query_session *ws;

	block_signals();
	ws = query_session_worker(f->p->s);
	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->stop && f->next_take < f->ix->n &&
		       f->next_take >= f->next_merge + f->window) {
			f->idle++;
			pthread_cond_wait(&f->more, &f->mu);
			f->idle--;
		}
		if (f->stop || f->next_take >= f->ix->n)
			break;
		size_t i = f->next_take++;
		pthread_mutex_unlock(&f->mu);
		void *part = NULL;
		char *why = NULL;
		int fatal = 0;
		if (ws)
			run_file(f, ws, i, &part, &why, &fatal);
		pthread_mutex_lock(&f->mu);
		struct slot *sl = &f->slots[i % f->window];
		sl->part = part;
		sl->why = part || why ? why : NULL;
		sl->fatal = !part && !why ? HS_ENOMEM : fatal;
		sl->ready = 1;
		if (i == f->next_merge) /* the fold waits for this one alone */
			pthread_cond_signal(&f->ready);
	}
	pthread_mutex_unlock(&f->mu);
	query_session_free(ws);
	return NULL;
}

static int add_skipped(query_result *out, const char *rel, const char *why)
{
	char **v = realloc(out->skipped, (out->nskipped + 1) * sizeof *v);

	if (!v)
		return -1;
	out->skipped = v;
	if (asprintf(&v[out->nskipped], "%s: %s", rel, why ? why : "out of memory") < 0)
		return -1;
	out->nskipped++;
	return 0;
}

static int thread_count(const query_session *s, size_t files)
{
	long n = s->threads > 0 ? s->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if ((size_t)n > files)
		n = files ? (long)files : 1;
	return (int)n;
}

/* Waits for a part for at most `ms`: f->ready runs on the monotonic clock,
 * the one hs_now_seconds() reads. */
static void wait_ready(struct fold *f, long ms)
{
	double until = hs_now_seconds() + (double)ms / 1000.0;
	struct timespec ts;

	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	pthread_cond_timedwait(&f->ready, &f->mu, &ts);
}

enum { FOLD_DONE, FOLD_CUT, FOLD_STOPPED, FOLD_OOM, FOLD_FAILED };

/* Folds file i's part into acc, or lists it as skipped, or fails the query
 * with why (NULL: out of memory) and the status `fatal`; frees both. */
static int take(struct fold *f, size_t i, void *part, char *why, int fatal, void *acc,
		query_result *out, query_fold_info *info)
{
	int rc;

	if (fatal) {
		hs_fail(f->p->err, fatal, "%s: %s", f->ix->entries[i].rel, why ? why : "out of memory");
		free(why);
		return FOLD_FAILED;
	}
	if (!part) {
		rc = add_skipped(out, f->ix->entries[i].rel, why);
		if (rc < 0)
			hs_fail(f->p->err, HS_ENOMEM, "out of memory listing skipped files");
	} else {
		rc = f->ops->merge(f->plan, acc, part, f->p->err);
		f->ops->free_part(part);
		free(part);
		info->graphs++;
	}
	free(why);
	return rc < 0 ? FOLD_OOM : rc == 1 ? FOLD_CUT : FOLD_DONE;
}

/* Progress, every PROGRESS_EVERY_MS; 1 when asked to stop. */
static int progress(struct fold *f, size_t done, double t0, double *last)
{
	query_session *s = f->p->s;
	double now = hs_now_seconds();

	if (!s->progress || now - *last < PROGRESS_EVERY_MS / 1000.0)
		return 0;
	*last = now;
	return s->progress(s->progress_ctx, done, f->ix->n, now - t0) != 0;
}

/* One thread: the calling one reads, runs and folds each file in turn. */
static int fold_inline(struct fold *f, void *acc, query_result *out, query_fold_info *info)
{
	query_session *ws = query_session_worker(f->p->s);
	double t0 = hs_now_seconds(), last = t0;
	int rc = ws ? FOLD_DONE : FOLD_OOM;

	for (size_t i = 0; i < f->ix->n && rc == FOLD_DONE; i++) {
		void *part = NULL;
		char *why = NULL;
		int fatal = 0;
		run_file(f, ws, i, &part, &why, &fatal);
		rc = take(f, i, part, why, !part && !why ? HS_ENOMEM : fatal, acc, out, info);
		f->next_merge = i + 1;
		if (rc == FOLD_DONE && progress(f, i + 1, t0, &last))
			rc = FOLD_STOPPED;
	}
	query_session_free(ws);
	return rc;
}

/* The fold in path order of what the workers hand over, on the calling
 * thread; the lock is held on entry and on return. */
static int fold_in_order(struct fold *f, void *acc, query_result *out, query_fold_info *info)
{
	double t0 = hs_now_seconds(), last = t0;

	while (f->next_merge < f->ix->n) {
		struct slot *sl = &f->slots[f->next_merge % f->window];
		if (!sl->ready)
			wait_ready(f, PROGRESS_EVERY_MS);
		if (sl->ready) {
			struct slot got = *sl;
			size_t i = f->next_merge++;
			memset(sl, 0, sizeof *sl);
			if (f->idle)
				pthread_cond_broadcast(&f->more);
			pthread_mutex_unlock(&f->mu);
			int rc = take(f, i, got.part, got.why, got.fatal, acc, out, info);
			pthread_mutex_lock(&f->mu);
			if (rc != FOLD_DONE)
				return rc;
		}
		size_t done = f->next_merge;
		pthread_mutex_unlock(&f->mu);
		int stop = progress(f, done, t0, &last);
		pthread_mutex_lock(&f->mu);
		if (stop)
			return FOLD_STOPPED;
	}
	return FOLD_DONE;
}

static int fold_folder(query_parser *p, const query_fold_ops *ops, const void *plan,
		       unsigned parts, void *acc, query_result *out, query_fold_info *info)
{
	struct fold f = {.p = p, .ops = ops, .plan = plan, .parts = parts, .ix = p->s->ix};
	int nt = thread_count(p->s, f.ix->n), started = 0, rc;
	pthread_t tid[MAX_THREADS];

	info->folder = 1;
	info->files = (int64_t)f.ix->n;
	if (nt == 1) {
		rc = fold_inline(&f, acc, out, info);
		goto end;
	}
	f.window = 2 * (size_t)nt;
	f.slots = calloc(f.window, sizeof *f.slots);
	if (!f.slots)
		return query_oom(p);
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.more, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f.ready, &ca);
	pthread_condattr_destroy(&ca);
	for (; started < nt; started++)
		if (pthread_create(&tid[started], NULL, worker, &f) != 0)
			break;
	pthread_mutex_lock(&f.mu);
	rc = started ? fold_in_order(&f, acc, out, info) : FOLD_OOM;
	f.stop = 1;
	pthread_cond_broadcast(&f.more);
	pthread_mutex_unlock(&f.mu);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	for (size_t i = 0; i < f.window; i++) {
		if (f.slots[i].part) {
			ops->free_part(f.slots[i].part);
			free(f.slots[i].part);
		}
		free(f.slots[i].why);
	}
	free(f.slots);
	pthread_cond_destroy(&f.more);
	pthread_cond_destroy(&f.ready);
	pthread_mutex_destroy(&f.mu);
end:
	info->cut = rc == FOLD_CUT;
	out->graphs = info->graphs;
	if (rc == FOLD_STOPPED) {
		p->s->stopped = 1;
		return hs_fail(p->err, HS_EDATA, "stopped after %zu of %zu file%s", f.next_merge,
			       f.ix->n, hs_s((long long)f.ix->n));

	}
	if (rc == FOLD_OOM)
		return started ? query_data_fail(p, p->err) : query_oom(p);
	if (rc == FOLD_FAILED)
		return query_data_fail(p, p->err);
	return 0;
}

int query_fold(query_parser *p, const query_fold_ops *ops, const void *plan, unsigned parts,
	       void *acc, query_result *out, query_fold_info *info)
{
	memset(info, 0, sizeof *info);
	parts |= GRAPH_PART_OPCODES;
	if (p->plan_only) {
		p->parts = parts;
		return 1;
	}
	if (p->s->ix) {
		if (fold_folder(p, ops, plan, parts, acc, out, info) < 0) {
			p->failed = 1;
			return -1;
		}
		return 0;
	}
	void *part = calloc(1, ops->part_size);
	if (!part)
		return query_oom(p);
	int rc = ops->run(p, plan, part);
	if (rc == 0 && p->failed)
		rc = -1;
	if (rc == 0 && ops->merge(plan, acc, part, p->err) < 0)
		rc = query_data_fail(p, p->err);
	ops->free_part(part);
	free(part);
	info->files = 1;
	info->graphs = out->graphs = rc == 0;
	return rc < 0 ? -1 : 0;
}
