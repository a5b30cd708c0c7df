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
static char gv_ctx_error[512];
static char gv_last_error[512];
static gvplugin_library_t *gv_core, *gv_layout, *gv_gd;
static lt_symlist_t gv_builtins[4], gv_png_builtins[4];

static int gv_error_sink(char *msg)
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
	agseterrf(gv_error_sink);
}

static void gv_error_reset(void)
{
	gv_last_error[0] = '\0';
}

static const char *gv_error_text(void)
{
	return gv_last_error[0] ? gv_last_error : "no message from Graphviz";
}

static void *plugin_symbol(const char *dir, const char *file, const char *sym)
{
	char path[1024];
	void *h;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	/* Never dlclose: Graphviz keeps pointers into the plugin. */
	return dlsym(h, sym);
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

static void load_plugins(void)
{
	static int loaded;

	if (loaded)
		return;
	loaded = 1;
	agseterrf(gv_error_sink);
	agseterr(AGERR);
	if (plugin_dir(gv_dir, sizeof gv_dir) != 0) {
		gv_dir[0] = '\0';
		return;
	}
	gv_core = plugin_symbol(gv_dir, "libgvplugin_core.so.6", "gvplugin_core_LTX_library");
	gv_layout = plugin_symbol(gv_dir, "libgvplugin_dot_layout.so.6",
				  "gvplugin_dot_layout_LTX_library");
}

/* The gd plugin pulls in libgd, FreeType and fontconfig: only for PNG. */
static GVC_t *make_context(lt_symlist_t *syms, int with_gd)
{
	int k = 0;

	load_plugins();
	if (!gv_core || !gv_layout)
		return gvContext(); /* an unusual install: let Graphviz find its plugins */
	syms[k].name = "gvplugin_dot_layout_LTX_library";
	syms[k++].address = gv_layout;
	syms[k].name = "gvplugin_core_LTX_library";
	syms[k++].address = gv_core;
	if (with_gd && !gv_gd && gv_dir[0])
		gv_gd = plugin_symbol(gv_dir, "libgvplugin_gd.so.6", "gvplugin_gd_LTX_library");
	if (with_gd && gv_gd) {
		syms[k].name = "gvplugin_gd_LTX_library";
		syms[k++].address = gv_gd;
	}
	syms[k].name = NULL;
	syms[k].address = NULL;
	return gvContextPlugins(syms, 0);
}

GVC_t *dot_context(hs_error *err)
{
	if (gv_ctx)
		return gv_ctx;
	if (gv_tried) {
		hs_fail(err, HS_EDATA, "%s", gv_ctx_error);
		return NULL;
	}
	gv_tried = 1;
	gv_ctx = make_context(gv_builtins, 0);
	if (!gv_ctx) {
		snprintf(gv_ctx_error, sizeof gv_ctx_error,
			 "cannot start Graphviz (gvc): is libgvc installed with its plugins?");
		hs_fail(err, HS_EDATA, "%s", gv_ctx_error);
		return NULL;
	}
	if (!gv_atexit) {
		gv_atexit = 1;
		atexit(dot_shutdown);
	}
	return gv_ctx;
}

/* PNG is drawn by gd, which measures text with FreeType: labels laid out
 * with the font gd will draw fit their boxes. */
static GVC_t *png_context(hs_error *err)
{
	if (gv_png_ctx)
		return gv_png_ctx;
	if (!dot_context(err))
		return NULL;
	if (!gv_png_tried) {
		gv_png_tried = 1;
		gv_png_ctx = make_context(gv_png_builtins, 1);
	}
	if (!gv_png_ctx)
		hs_fail(err, HS_EDATA, "cannot start Graphviz for PNG output");
	return gv_png_ctx;
}

void dot_shutdown(void)
{
	void *h;

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

/* gvLayout and gvRenderData run in a thread of their own (with a large stack:
 * Graphviz recurses deeply on big graphs) while the calling thread ticks
 * base/progress.h with what is being done and for how long, so that a
 * layout of seconds shows a line on the terminal.  Graphviz is only ever
 * used by one thread at a time. */
typedef struct gv_job {
	int (*fn)(struct gv_job *j);
	GVC_t *gvc;
	Agraph_t *g;
	const char *fmt;
	char *data;          /* gvRenderData's result */
	unsigned int len;
	int rc, done;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} gv_job;

#define GV_STACK_BYTES ((size_t)256 << 20)

static void *gv_job_main(void *arg)
{
	gv_job *j = arg;
	int rc = j->fn(j);

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
		j->rc = j->fn(j);
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
	return j->rc;
}

/* Graphviz renders into memory of its own, never to a file: its writer
 * ends the process when a write fails (a full disk), which would leave the
 * temporary file behind.  Our writer then puts the bytes in place. */
static int render_job(gv_job *j)
{
	return gvRenderData(j->gvc, j->g, j->fmt, &j->data, &j->len);
}

/* g in fmt (svg, png) into *data (freed with gvFreeRenderData), *len bytes. */
static int gv_render(GVC_t *gvc, Agraph_t *g, const char *fmt, char **data, size_t *len)
{
	gv_job j = {.fn = render_job, .gvc = gvc, .g = g, .fmt = fmt};
	char what[96];
	snprintf(what, sizeof what, "drawing the %s", !strcmp(fmt, "png") ? "PNG" : "SVG");
	int rc = gv_run(&j, what);
	hs_progress_end();
	if (rc != 0 && j.data) {
		gvFreeRenderData(j.data);
		j.data = NULL;
	}
	*data = j.data;
	*len = j.len;
	return rc != 0 || !j.data ? -1 : 0;
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

/* ---- writing ---------------------------------------------------------- */

#define DOT_PNG_FONT "DejaVu Sans"

static void set(void *obj, Agsym_t *sym, const char *v)
{
	agxset(obj, sym, (char *)v);
}

static void swap_graph_fonts(Agraph_t *g, Agsym_t *sym, const char *from,
			     const char *to)
{
	if (!strcmp(agxget(g, sym), from))
		set(g, sym, to);
	for (Agraph_t *sub = agfstsubg(g); sub; sub = agnxtsubg(sub))
		swap_graph_fonts(sub, sym, from, to);
}

/* Replaces fontname `from` by `to` on every object that uses it. */
static void swap_fonts(Agraph_t *g, const char *from, const char *to)
{
	Agsym_t *gs = agattr(g, AGRAPH, "fontname", NULL);
	Agsym_t *ns = agattr(g, AGNODE, "fontname", NULL);
	Agsym_t *es = agattr(g, AGEDGE, "fontname", NULL);

	if (gs)
		swap_graph_fonts(g, gs, from, to);
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
		if (ns && !strcmp(agxget(n, ns), from))
			set(n, ns, to);
		for (Agedge_t *e = agfstout(g, n); es && e; e = agnxtout(g, e))
			if (!strcmp(agxget(e, es), from))
				set(e, es, to);
	}
}

/* A drawing in memory: DOT text in `text`, or SVG / PNG bytes Graphviz
 * made (`gv`, freed by gvFreeRenderData). */
typedef struct dot_bytes {
	hs_strbuf text;
	char *gv;
	size_t n;
} dot_bytes;

static const char *bytes_data(const dot_bytes *b)
{
	return b->gv ? b->gv : hs_strbuf_str(&b->text);
}

static void bytes_free(dot_bytes *b)
{
	if (b->gv)
		gvFreeRenderData(b->gv);
	hs_strbuf_free(&b->text);
	memset(b, 0, sizeof *b);
}

/* agwrite's text of g into b->text. */
static int dot_text(Agraph_t *g, dot_bytes *b, hs_error *err)
{
	FILE *f = hs_strbuf_open(&b->text);

	if (!f)
		return hs_fail(err, HS_ENOMEM, "out of memory writing DOT");
	agseterrf(gv_error_sink);
	int bad = agwrite(g, f) != 0;
	if (fclose(f) != 0 || b->text.failed)
		return hs_fail(err, HS_ENOMEM, "out of memory writing DOT");
	if (bad)
		return hs_fail(err, HS_EDATA, "Graphviz cannot write DOT: %s", gv_error_text());
	b->n = b->text.len;
	return 0;
}

/* Lays g out and renders it as SVG or PNG into b->gv. */
static int dot_picture(Agraph_t *g, const char *fmt, dot_fit *fit, dot_bytes *b, hs_error *err)
{
	int png = !strcmp(fmt, "png");
	GVC_t *gvc = png ? png_context(err) : dot_context(err);
	if (!gvc)
		return -1;
	/* gd draws with FreeType through fontconfig, which may not resolve the
	 * PostScript name Helvetica: use a family fontconfig always knows. */
	if (png)
		swap_fonts(g, "Helvetica", DOT_PNG_FONT);
	int rc = png ? dot_fit_layout(gvc, g, fit) : dot_gv_layout(gvc, g);
	if (rc != 0) {
		if (png)
			swap_fonts(g, DOT_PNG_FONT, "Helvetica");
		return hs_fail(err, HS_EDATA, "Graphviz dot layout failed: %s",
			       gv_error_text());
	}
	rc = gv_render(gvc, g, fmt, &b->gv, &b->n);
	gvFreeLayout(gvc, g);
	if (png) {
		dot_fit_done(g);
		swap_fonts(g, DOT_PNG_FONT, "Helvetica");
	}
	if (rc != 0)
		return hs_fail(err, HS_EDATA, "Graphviz cannot render %s: %s%s", fmt,
			       gv_error_text(),
			       png ? " (PNG needs Graphviz's gd plugin, libgvplugin_gd)" : "");
	return 0;
}

/* g in fmt, in memory: 0, or -1 with err set and nothing in b. */
static int dot_render(Agraph_t *g, const char *fmt, dot_fit *fit, dot_bytes *b, hs_error *err)
{
	memset(b, 0, sizeof *b);
	if (fit) {
		memset(fit, 0, sizeof *fit);
		fit->scale = 1;
	}
	if (!dot_format_known(fmt))
		return hs_fail(err, HS_EUSAGE, "unknown output format '%s' (dot, svg or png)",
			       fmt ? fmt : "");
	gv_error_reset();
	int rc = !strcmp(fmt, "dot") ? dot_text(g, b, err) : dot_picture(g, fmt, fit, b, err);
	if (rc != 0)
		bytes_free(b);
	return rc;
}

int dot_write_stream(Agraph_t *g, FILE *fp, const char *fmt, dot_fit *fit, hs_error *err)
{
	dot_bytes b;

	if (dot_render(g, fmt, fit, &b, err) != 0)
		return -1;
	int rc = 0;
	errno = 0;
	if (b.n && fwrite(bytes_data(&b), 1, b.n, fp) != b.n) {
		int e = errno ? errno : EIO;
		rc = hs_fail(err, hs_errno_status(e), "writing %s failed: %s", fmt, strerror(e));
	}
	bytes_free(&b);
	return rc;
}

int dot_write(Agraph_t *g, const char *path, const char *fmt, dot_fit *fit, hs_error *err)
{
	dot_bytes b;

	if (!dot_format_known(fmt))
		return hs_fail(err, HS_EUSAGE, "unknown output format '%s' (dot, svg or png)",
			       fmt ? fmt : "");
	/* opened first: a place that is refused is refused before the work */
	hs_afile *af = hs_afile_open(path, err);
	if (!af)
		return -1;
	if (dot_render(g, fmt, fit, &b, err) != 0) {
		hs_afile_abort(af);
		hs_error_prefix(err, "%s", path);
		return -1;
	}
	if (b.n)
		fwrite(bytes_data(&b), 1, b.n, hs_afile_stream(af));
	bytes_free(&b);
	return hs_afile_commit(af, err);
}

int dot_export(const region *r, const dot_opts *o, const char *path,
	       const char *fmt, dot_fit *fit, hs_error *err)
{
	Agraph_t *g = dot_build(r, o, err);
	int rc;

	if (!g)
		return -1;
	rc = dot_write(g, path, fmt, fit, err);
	agclose(g);
	return rc;
}
