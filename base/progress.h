/* progress.h - long work says how far it is, and stops when asked.
 *
 * The front end (the command line, the explorer) gives the thread that
 * runs a long operation a hook; the library's long loops (reading a big
 * module, computing features and costs, folder queries) call
 * hs_progress_tick() as they go.  Without a hook a tick costs a test of a
 * thread-local pointer.
 *
 *     static int show(void *ctx, const char *what, double done, double total)
 *     {
 *             fprintf(stderr, "\r%s %.0f%%", what, 100 * done / total);
 *             return key_pressed();      // nonzero: stop
 *     }
 *     hs_progress p = {show, NULL, 0.5};
 *     hs_progress_push(&p);
 *     hs_graph *g = graph_open(path, &err);   // may fail with HS_ESTOPPED
 *     hs_progress_pop(&p);
 *
 * The hook is called at most ten times a second, and only once the work
 * has run `after` seconds (a short operation shows nothing).  When it
 * returns nonzero the tick returns 1 and keeps returning 1 for that hook:
 * the work gives up with hs_fail(err, HS_ESTOPPED, ...) and frees what it
 * made, as on any other failure.  Hooks nest (a folder query's files each
 * read a module); the innermost is called.
 */
#ifndef HS_PROGRESS_H
#define HS_PROGRESS_H

typedef struct hs_progress {
	/* what: "reading t50000.hlo", done/total in any unit (total 0:
	 * unknown); nonzero stops the work */
	int (*fn)(void *ctx, const char *what, double done, double total);
	void *ctx;
	double after;              /* seconds before the first call */
	/* the hook's state (hs_progress_push sets it) */
	double start, last;
	int stopped;
	struct hs_progress *outer;
} hs_progress;

void hs_progress_push(hs_progress *p);
void hs_progress_pop(hs_progress *p);
/* 1 when the work should stop (asked now or before), else 0. */
int hs_progress_tick(const char *what, double done, double total);
/* 1 when the innermost hook has been told to stop. */
int hs_progress_stopped(void);
/* A long operation is over: a hook that has shown something is called
 * once with what = NULL (to clear its line). */
void hs_progress_end(void);

#endif
