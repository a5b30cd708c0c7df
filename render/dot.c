/* dot.c - regions as cgraph graphs, the shared Graphviz context, export.
 * See dot.h. */
#include "render/dot.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include "base/afile.h"
#include "base/clock.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/units.h"
#include "dot_impl.h"

/* ---- the Graphviz context --------------------------------------------- */

/* Plugins are preloaded from Graphviz's plugin folder with dlopen and handed
 * to gvContextPlugins() as builtins, so Graphviz neither reads its config
 * file (whose buffer it never frees) nor loads a text layout plugin: labels
 * are measured with Graphviz's built-in font metrics, which is fast,
 * deterministic and keeps fontconfig out of layouts.  PNG has a context of
 * its own with the gd plugin, whose text layout measures labels with the
 * FreeType font gd then draws them in (so they fit their boxes). */

static GVC_t *gv_ctx;     /* layouts, DOT, SVG: built-in font metrics */
static GVC_t *gv_png_ctx; /* PNG: gd with its FreeType text layout */
static int gv_tried, gv_png_tried, gv_atexit;
static int gv_nlost, gv_png_lost; /* calls lost to a fault (see dot_guarded) */
static int gv_oom_seen;           /* an allocation failed in Graphviz, gd or a plugin's load */
static int gv_ctx_lost;           /* making a context faulted out of memory */
static char gv_ctx_error[512];
static char gv_last_error[512];
static gvplugin_library_t *gv_core, *gv_layout, *gv_gd;
static lt_symlist_t gv_builtins[4], gv_png_builtins[4];

int dot_gv_error_sink(char *msg)
{
	size_t n;

	/* Keep the first error of an operation (later ones are consequences). */
	if (gv_last_error[0])
		return 0;
	snprintf(gv_last_error, sizeof gv_last_error, "%s", msg);
	n = strlen(gv_last_error);
	while (n && (gv_last_error[n - 1] == '\n' || gv_last_error[n - 1] == ' '))
		gv_last_error[--n] = '\0';
	return 0;
}

void dot_catch_errors(void)
{
	agseterrf(dot_gv_error_sink);
}

void dot_gv_error_reset(void)
{
	gv_last_error[0] = '\0';
}

const char *dot_gv_error_text(void)
{
	return gv_last_error[0] ? gv_last_error : "no message from Graphviz";
}

/* Why the last plugin could not be loaded (dlerror, errno). */
static char gv_dl_error[400];
static int gv_dl_errno;

/* 1 when that was for lack of memory: the library could not be mapped. */
static int dl_out_of_memory(void)
{
	return gv_dl_errno == ENOMEM || strstr(gv_dl_error, "map segment") || strstr(gv_dl_error, "memory");
}

static void *plugin_symbol(const char *dir, const char *file, const char *sym)
{
	char path[1024];
	void *h;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	errno = 0;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	/* Never dlclose: Graphviz keeps pointers into the plugin. */
	void *f = h ? dlsym(h, sym) : NULL;
	if (!f) {
		int e = errno;
		const char *why = dlerror();
		gv_dl_errno = e;
		snprintf(gv_dl_error, sizeof gv_dl_error, "%s",
			 why && *why ? why : e ? strerror(e) : h ? "no such symbol" : "dlopen failed");
	}
	return f;
}

static int plugin_dir(char *out, size_t cap)
{
	const char *env = getenv("GVBINDIR");
	static const char *const fallback[] = {
		"/usr/lib/x86_64-linux-gnu/graphviz", "/usr/lib/aarch64-linux-gnu/graphviz",
		"/usr/lib64/graphviz", "/usr/lib/graphviz", "/usr/local/lib/graphviz",
	};
	Dl_info info;
	char probe[1024];

	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return 0;
	}
	if (dladdr((void *)gvContextPlugins, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		if (slash) {
			snprintf(out, cap, "%.*s/graphviz", (int)(slash - info.dli_fname),
				 info.dli_fname);
			snprintf(probe, sizeof probe, "%s/libgvplugin_dot_layout.so.6", out);
			if (access(probe, R_OK) == 0)
				return 0;
		}
	}
	for (size_t i = 0; i < sizeof fallback / sizeof fallback[0]; i++) {
		snprintf(probe, sizeof probe, "%s/libgvplugin_dot_layout.so.6", fallback[i]);
		if (access(probe, R_OK) == 0) {
			snprintf(out, cap, "%s", fallback[i]);
			return 0;
		}
	}
	return -1;
}

static char gv_dir[900];

static int gv_plugins_oom; /* the core or layout plugin did not fit in memory */

static void load_plugins(void)
{
	static int loaded;

	if (loaded)
		return;
	agseterrf(dot_gv_error_sink);
	agseterr(AGERR);
	if (plugin_dir(gv_dir, sizeof gv_dir) != 0) {
		gv_dir[0] = '\0';
		loaded = 1;
		return;
	}
	if (!gv_core)
		gv_core = plugin_symbol(gv_dir, "libgvplugin_core.so.6", "gvplugin_core_LTX_library");
	if (!gv_layout)
		gv_layout = plugin_symbol(gv_dir, "libgvplugin_dot_layout.so.6",
					  "gvplugin_dot_layout_LTX_library");
	/* for lack of memory: tried again next time */
	gv_plugins_oom = (!gv_core || !gv_layout) && dl_out_of_memory();
	loaded = !gv_plugins_oom;
}

/* The gd plugin pulls in libgd, FreeType and fontconfig: only for PNG. */
static GVC_t *make_context_unguarded(lt_symlist_t *syms, int with_gd)
{
	int k = 0;

	load_plugins();
	if (gv_plugins_oom) {
		errno = ENOMEM;
		return NULL;
	}
	if (!gv_core || !gv_layout)
		return gvContext(); /* an unusual install: let Graphviz find its plugins */
	syms[k].name = "gvplugin_dot_layout_LTX_library";
	syms[k++].address = gv_layout;
	syms[k].name = "gvplugin_core_LTX_library";
	syms[k++].address = gv_core;
	if (with_gd && !gv_gd && gv_dir[0]) {
		gv_dl_error[0] = '\0';
		gv_gd = plugin_symbol(gv_dir, "libgvplugin_gd.so.6", "gvplugin_gd_LTX_library");
	}
	if (with_gd && gv_gd) {
		syms[k].name = "gvplugin_gd_LTX_library";
		syms[k++].address = gv_gd;
	}
	syms[k].name = NULL;
	syms[k].address = NULL;
	return gvContextPlugins(syms, 0);
}

struct context_call {
	lt_symlist_t *syms;
	int with_gd;
	GVC_t *gvc;
	int err_no;
};

static int context_call(void *arg)
{
	struct context_call *c = arg;

	errno = 0;
	c->gvc = make_context_unguarded(c->syms, c->with_gd);
	c->err_no = errno;
	return 0;
}

/* A context, or NULL with errno ENOMEM when memory ran out making it (then
 * lost: see dot_guarded). */
static GVC_t *make_context(lt_symlist_t *syms, int with_gd)
{
	struct context_call c = {syms, with_gd, NULL, 0};

	if (dot_guarded(context_call, &c) == -2) {
		/* a fault loading a plugin's libraries (a constructor that did
		 * not get its memory): the loader may be left locked */
		c.err_no = ENOMEM;
		gv_ctx_lost = 1;
	}
	if (c.err_no == ENOMEM || gv_plugins_oom)
		gv_oom_seen = 1;
	errno = c.gvc ? 0 : c.err_no;
	return c.gvc;
}

GVC_t *dot_context(hs_error *err)
{
	if (gv_ctx)
		return gv_ctx;
	if (gv_ctx_lost) {
		hs_fail(err, HS_ENOMEM, "out of memory: Graphviz ran out starting, and drawing is off "
			"until hloscope starts again");
		return NULL;
	}
	if (gv_tried) {
		hs_fail(err, HS_EDATA, "%s", gv_ctx_error);
		return NULL;
	}
	errno = 0;
	gv_ctx = make_context(gv_builtins, 0);
	if (!gv_ctx) {
		if (errno == ENOMEM) { /* not for good: tried again next time */
			hs_fail(err, HS_ENOMEM, "out of memory starting Graphviz");
			return NULL;
		}
		gv_tried = 1;
		snprintf(gv_ctx_error, sizeof gv_ctx_error,
			 "cannot start Graphviz (gvc): is libgvc installed with its plugins?");
		hs_fail(err, HS_EDATA, "%s", gv_ctx_error);
		return NULL;
	}
	gv_tried = 1;
	if (!gv_atexit) {
		gv_atexit = 1;
		atexit(dot_shutdown);
	}
	return gv_ctx;
}

/* Why the gd plugin is not there, before anything is laid out: a plugin
 * that is missing is bad data (2), one that could not be mapped for lack of
 * memory is out of memory (3), so that neither is reported as the other
 * after a layout. */
static int gd_missing(hs_error *err)
{
	char path[1024];

	if (!gv_dir[0]) /* an unusual install: Graphviz finds its own plugins */
		return 0;
	snprintf(path, sizeof path, "%s/libgvplugin_gd.so.6", gv_dir);
	if (access(path, R_OK) != 0)
		return hs_fail(err, HS_EDATA, "PNG needs Graphviz's gd plugin, libgvplugin_gd, "
			       "which is not in %s", gv_dir);
	if (dl_out_of_memory()) {
		gv_oom_seen = 1;
		return hs_fail(err, HS_ENOMEM, "out of memory loading Graphviz's gd plugin for PNG (%s)",
			       gv_dl_error);
	}
	return hs_fail(err, HS_EDATA, "cannot load Graphviz's gd plugin for PNG: %s", gv_dl_error);
}

/* PNG is drawn by gd, which measures text with FreeType: labels laid out
 * with the font gd will draw fit their boxes. */
GVC_t *dot_png_context(hs_error *err)
{
	if (gv_png_lost) { /* gd may hold its font cache's lock for good */
		hs_fail(err, HS_ENOMEM, "out of memory: Graphviz ran out drawing an earlier PNG, "
			"and PNG output is off until hloscope starts again");
		return NULL;
	}
	if (gv_png_ctx)
		return gv_png_ctx;
	if (!dot_context(err))
		return NULL;
	if (!gv_png_tried) {
		errno = 0;
		gv_png_ctx = make_context(gv_png_builtins, 1);
		if (!gv_png_ctx && errno == ENOMEM) { /* tried again next time */
			hs_fail(err, HS_ENOMEM, "out of memory starting Graphviz for PNG output");
			return NULL;
		}
		if (!gv_gd && gd_missing(err) < 0) {
			if (gv_png_ctx)
				gvFreeContext(gv_png_ctx);
			gv_png_ctx = NULL;
			return NULL; /* tried again next time */
		}
		gv_png_tried = 1;
	}
	if (!gv_png_ctx)
		hs_fail(err, HS_EDATA, "cannot start Graphviz for PNG output");
	return gv_png_ctx;
}

void dot_shutdown(void)
{
	void *h;

	/* after a fault Graphviz, gd or fontconfig may hold a lock they never
	 * release, and after an allocation failed in them their cleanup may
	 * need memory they cannot have (glibc aborts a dlopen without TLS):
	 * the process ends without it */
	if (gv_nlost || gv_oom_seen)
		return;
	if (!gv_ctx && !gv_png_ctx)
		return;
	if (gv_png_ctx)
		gvFreeContext(gv_png_ctx);
	if (gv_ctx)
		gvFreeContext(gv_ctx);
	gv_ctx = gv_png_ctx = NULL;
	gv_tried = gv_png_tried = 0;
	/* The gd plugin initialised fontconfig to draw PNG text; release its
	 * caches so leak checkers see a clean exit. */
	h = dlopen("libgd.so.3", RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		void (*fini)(void) = (void (*)(void))dlsym(h, "gdFontCacheShutdown");
		if (fini)
			fini();
		dlclose(h);
	}
	h = dlopen("libfontconfig.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		void (*fini)(void) = (void (*)(void))dlsym(h, "FcFini");
		if (fini)
			fini();
		dlclose(h);
	}
}

/* ---- long Graphviz work, with a progress line ---------------------------- */

/* gvLayout and gvRender run in a thread of their own (with a large stack:
 * Graphviz recurses deeply on big graphs) while the calling thread ticks
 * base/progress.h with what is being done and for how long, so that a
 * layout of seconds shows a line on the terminal.  Graphviz is only ever
 * used by one thread at a time. */
typedef struct gv_job {
	int (*fn)(struct gv_job *j);
	GVC_t *gvc;
	Agraph_t *g;
	const char *fmt;
	FILE *fp;
	int rc, done;
	int err_no;   /* errno after fn: ENOMEM when an allocation failed */
	int lost;     /* Graphviz faulted out of memory: g and gvc are lost */
	pthread_mutex_t mu;
	pthread_cond_t cv;
} gv_job;

#define GV_STACK_BYTES ((size_t)256 << 20)

/* ---- when Graphviz runs out of memory ------------------------------------ */

/* Graphviz 2.43 does not survive a failed allocation: its gmalloc says "out
 * of memory" and returns NULL, which the layout then dereferences
 * (SIGSEGV), and so do cgraph's agopen and agstrdup, the plugin loader and
 * gd.  Every call into Graphviz that allocates runs under a guard
 * (dot_guarded): a fault in that thread with errno ENOMEM (set by the
 * allocation that failed) jumps back out, the call fails as out of memory,
 * and what Graphviz was working on is left alone for good -- the graph
 * (dot_close does not free it), the context (the next use makes another) --
 * since freeing what is half made could fault again.  Any other fault goes
 * to the handler that was there before, as without the guard.  Not under
 * the sanitizers, which handle faults themselves. */
#if !defined(__SANITIZE_ADDRESS__)
#define GV_GUARD 1
static __thread sigjmp_buf *gv_jump; /* set in a thread while a guarded call runs */
static const int gv_signals[] = {SIGSEGV, SIGBUS, SIGABRT};
static struct sigaction gv_before[3];
static int gv_guards; /* guarded calls under way (handlers installed while > 0) */
static pthread_mutex_t gv_guard_mu = PTHREAD_MUTEX_INITIALIZER;

static void gv_fault(int sig)
{
	if (gv_jump && errno == ENOMEM)
		siglongjmp(*gv_jump, 1);
	/* not ours: the previous handler, when the fault happens again on
	 * return (abort raises again by itself) */
	for (int i = 0; i < 3; i++)
		if (gv_signals[i] == sig)
			sigaction(sig, &gv_before[i], NULL);
}

static void gv_guard(int on)
{
	struct sigaction sa;

	pthread_mutex_lock(&gv_guard_mu);
	if (on ? gv_guards++ == 0 : --gv_guards == 0) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = gv_fault;
		sigemptyset(&sa.sa_mask);
		for (int i = 0; i < 3; i++) {
			if (on)
				sigaction(gv_signals[i], &sa, &gv_before[i]);
			else
				sigaction(gv_signals[i], &gv_before[i], NULL);
		}
	}
	pthread_mutex_unlock(&gv_guard_mu);
}
#else
#define GV_GUARD 0
#endif

int dot_guarded(int (*fn)(void *), void *ctx)
{
#if GV_GUARD
	sigjmp_buf jump, *outer = gv_jump;

	gv_guard(1);
	if (sigsetjmp(jump, 1)) {
		gv_jump = outer;
		gv_guard(0);
		gv_nlost++;
		return -2;
	}
	gv_jump = &jump;
	int rc = fn(ctx);
	gv_jump = outer;
	gv_guard(0);
	return rc;
#else
	return fn(ctx);
#endif
}

/* Graphs lost to a fault (dot_close leaves them); past the table's size,
 * every graph is left (a leak at most). */
static Agraph_t *gv_lost_graphs[64];
static int gv_nlost_graphs;
static int gv_last_oom;    /* the last job failed for lack of memory */
static int gv_last_enomem; /* an allocation failed in the last job */

void dot_lose_graph(Agraph_t *g)
{
	if (gv_nlost_graphs < (int)(sizeof gv_lost_graphs / sizeof gv_lost_graphs[0]))
		gv_lost_graphs[gv_nlost_graphs] = g;
	gv_nlost_graphs++;
}

/* A job that faulted: its graph and its context are lost. */
static void gv_lose(gv_job *j)
{
	dot_lose_graph(j->g);
	if (j->gvc == gv_ctx) {
		gv_ctx = NULL;
		gv_tried = 0;
	}
	if (j->gvc == gv_png_ctx) {
		gv_png_ctx = NULL;
		gv_png_tried = 0;
		gv_png_lost = 1;
	}
}

int dot_graph_lost(const Agraph_t *g)
{
	int n = gv_nlost_graphs < 64 ? gv_nlost_graphs : 64;

	if (gv_nlost_graphs > 64)
		return 1;
	for (int i = 0; i < n; i++)
		if (gv_lost_graphs[i] == g)
			return 1;
	return 0;
}

void dot_close(Agraph_t *g)
{
	if (g && !dot_graph_lost(g))
		agclose(g);
}

int dot_gv_out_of_memory(void)
{
	return gv_last_oom;
}

/* The job's work, errno afterwards in err_no. */
static int gv_job_call(void *arg)
{
	gv_job *j = arg;

	errno = 0;
	int rc = j->fn(j);
	j->err_no = errno;
	return rc;
}

/* The job's work under the guard. */
static int gv_job_guarded(gv_job *j)
{
	int rc = dot_guarded(gv_job_call, j);

	if (rc == -2) {
		j->lost = 1;
		j->err_no = ENOMEM;
		return -1;
	}
	return rc;
}

static void *gv_job_main(void *arg)
{
	gv_job *j = arg;
	int rc = gv_job_guarded(j);

	pthread_mutex_lock(&j->mu);
	j->rc = rc;
	j->done = 1;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

static int gv_run(gv_job *j, const char *what)
{
	pthread_attr_t attr;
	pthread_t th;
	double t0 = hs_now_seconds();
	char line[200];

	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	j->done = 0;
	int started = pthread_attr_init(&attr) == 0;
	if (started) {
		pthread_attr_setstacksize(&attr, GV_STACK_BYTES);
		started = pthread_create(&th, &attr, gv_job_main, j) == 0;
		pthread_attr_destroy(&attr);
	}
	if (!started) { /* no thread: the work here, without a line */
		j->rc = gv_job_guarded(j);
	} else {
		pthread_mutex_lock(&j->mu);
		while (!j->done) {
			struct timespec ts;
			hs_deadline_after(&ts, 0.1);
			if (pthread_cond_timedwait(&j->cv, &j->mu, &ts) != 0 && !j->done) {
				pthread_mutex_unlock(&j->mu);
				double el = hs_now_seconds() - t0;
				char took[32];
				hs_unit_format(took, sizeof took, HS_U_SECONDS, el, 1);
				snprintf(line, sizeof line, "%s, %s", what, took);
				hs_progress_tick(line, el, 0);
				pthread_mutex_lock(&j->mu);
			}
		}
		pthread_mutex_unlock(&j->mu);
		pthread_join(th, NULL);
	}
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	if (j->lost)
		gv_lose(j);
	gv_last_enomem = j->lost || j->err_no == ENOMEM;
	gv_oom_seen |= gv_last_enomem;
	gv_last_oom = j->rc != 0 && gv_last_enomem;
	return j->rc;
}

/* Graphviz writes only into a stream of ours in memory (dot_mem), never to
 * the output: its writer ends the process when a write fails. */
static int render_job(gv_job *j)
{
	return gvRender(j->gvc, j->g, j->fmt, j->fp);
}

int dot_gv_render(GVC_t *gvc, Agraph_t *g, const char *fmt, FILE *fp)
{
	gv_job j = {.fn = render_job, .gvc = gvc, .g = g, .fmt = fmt, .fp = fp};
	char what[96];
	snprintf(what, sizeof what, "drawing the %s", !strcmp(fmt, "png") ? "PNG" : "SVG");
	int rc = gv_run(&j, what);
	hs_progress_end();
	return rc;
}

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>

/* Graphviz 2.43 leaks inside its dot layout: the virtual nodes and edges of
 * cluster skeletons (build_skeleton), what it makes of an edge between two
 * clusters (class1's auxiliary edges, make_aux_edge; the virtual edges of
 * class2 and of expand_cluster's interclexp, new_virtual_edge) and the
 * sizing tables of HTML-like labels (make_html_label); all are fixed in
 * later Graphviz releases.  The
 * blocks come from Graphviz's own allocator in libgvc (gmalloc, zmalloc,
 * grealloc), which nothing of ours calls, and libgvc has no frame pointers,
 * so the module is the only frame LeakSanitizer's fast unwinder sees.
 * With HLOSCOPE_LSAN_PRECISE set (and ASAN_OPTIONS=fast_unwind_on_malloc=0
 * for full stacks) only these four functions are suppressed, which
 * tests/suites/render_asan.sh uses to show no leak of ours hides there. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	if (getenv("HLOSCOPE_LSAN_PRECISE"))
		return "leak:build_skeleton\nleak:make_aux_edge\nleak:new_virtual_edge\n"
		       "leak:make_html_label\n";
	return "leak:libgvc.so\n";
}

/* The leaks above happen inside gvLayout, and matching a leak against a
 * suppression makes LeakSanitizer symbolize its stack: it then reads the
 * debug information of every library loaded, 0.15 s of CPU at the exit of
 * each process that laid a graph out.  So what Graphviz allocates during
 * a layout is left out of the check instead (__lsan_disable), unless
 * HLOSCOPE_LSAN_PRECISE asks for the precise suppressions.  Everything of
 * ours (the graph, its attributes, the rendered text) is allocated outside
 * that window and stays checked. */
static int layout_job(gv_job *j)
{
	int precise = getenv("HLOSCOPE_LSAN_PRECISE") != NULL;

	if (!precise)
		__lsan_disable();
	int rc = gvLayout(j->gvc, j->g, "dot");

	if (!precise)
		__lsan_enable();
	return rc;
}

/* Say nothing about the suppressions above when they were used. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif
#if !defined(__SANITIZE_ADDRESS__)
static int layout_job(gv_job *j)
{
	return gvLayout(j->gvc, j->g, "dot");
}
#endif

int dot_gv_layout(GVC_t *gvc, Agraph_t *g)
{
	gv_job j = {.fn = layout_job, .gvc = gvc, .g = g};
	char what[96], n[32], e[32];

	hs_num_thousands(n, sizeof n, agnnodes(g));
	hs_num_thousands(e, sizeof e, agnedges(g));
	snprintf(what, sizeof what, "laying out %s boxes and %s edges with Graphviz", n, e);
	int rc = gv_run(&j, what);
	hs_progress_end();
	return rc;
}

/* ---- formats --------------------------------------------------------- */

const char *dot_format_for_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot || strchr(dot, '/'))
		return NULL;
	if (!strcasecmp(dot, ".dot") || !strcasecmp(dot, ".gv"))
		return "dot";
	if (!strcasecmp(dot, ".svg"))
		return "svg";
	if (!strcasecmp(dot, ".png"))
		return "png";
	return NULL;
}

int dot_format_known(const char *fmt)
{
	return fmt && (!strcmp(fmt, "dot") || !strcmp(fmt, "svg") || !strcmp(fmt, "png"));
}

int dot_gv_last_enomem(void)
{
	return gv_last_enomem;
}

int dot_gv_has_gd(void)
{
	return gv_gd != NULL;
}
