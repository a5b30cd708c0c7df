/* dot_write.c - a laid out graph written as DOT, SVG or PNG: Graphviz
 * renders into memory of ours, then the bytes reach the output.  See dot.h. */
#include "render/dot.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <graphviz/gvc.h>

#include "base/afile.h"
#include "dot_impl.h"

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

/* A PNG's steps that set attributes around its layout (agxset allocates,
 * and Graphviz faults when that fails: dot_guarded).  gd draws with
 * FreeType through fontconfig, which may not resolve the PostScript name
 * Helvetica: a family fontconfig always knows while it is laid out and
 * drawn, and the viewport of the fit taken off afterwards. */
struct png_call {
	GVC_t *gvc;
	Agraph_t *g;
	dot_fit *fit;
	int rc;
};

static int png_layout(void *arg)
{
	struct png_call *c = arg;

	swap_fonts(c->g, "Helvetica", DOT_PNG_FONT);
	c->rc = dot_fit_layout(c->gvc, c->g, c->fit);
	if (c->rc != 0 && !dot_graph_lost(c->g))
		swap_fonts(c->g, DOT_PNG_FONT, "Helvetica");
	return 0;
}

static int png_done(void *arg)
{
	struct png_call *c = arg;

	dot_fit_done(c->g);
	swap_fonts(c->g, DOT_PNG_FONT, "Helvetica");
	return 0;
}

/* One of them: -1 with g lost when memory ran out. */
static int png_step(int (*fn)(void *), struct png_call *c)
{
	if (dot_guarded(fn, c) != -2)
		return 0;
	dot_lose_graph(c->g);
	return -1;
}

/* gd's complaints while it draws a PNG (its default handler prints them):
 * a row it could not allocate leaves a cut PNG behind a render that says
 * it succeeded. */
static char gd_complaint[256];

static void gd_note(int priority, const char *fmt, va_list ap)
{
	if (priority <= 4 /* GD_WARNING */ && !gd_complaint[0]) {
		vsnprintf(gd_complaint, sizeof gd_complaint, fmt, ap);
		size_t n = strlen(gd_complaint);
		while (n && (gd_complaint[n - 1] == '\n' || gd_complaint[n - 1] == ' '))
			gd_complaint[--n] = '\0';
	}
}

static void gd_watch(int on)
{
	void *h = dlopen("libgd.so.3", RTLD_NOW | RTLD_NOLOAD);

	if (on)
		gd_complaint[0] = '\0';
	if (!h)
		return;
	void (*set_method)(void (*)(int, const char *, va_list)) =
		(void (*)(void (*)(int, const char *, va_list)))dlsym(h, "gdSetErrorMethod");
	void (*clear)(void) = (void (*)(void))dlsym(h, "gdClearErrorMethod");
	if (on && set_method)
		set_method(gd_note);
	else if (!on && clear)
		clear();
	dlclose(h);
}

/* A drawing in memory: an anonymous file (memfd) behind a stream whose
 * buffer is ours, so that Graphviz's writes allocate nothing and cannot
 * fail for a full disk or a failed allocation (Graphviz ends the process
 * when a write fails).  The bytes are then copied to the output. */
typedef struct dot_mem {
	FILE *f;
	char buf[1 << 16];
} dot_mem;

static int mem_open(dot_mem *m, hs_error *err)
{
	int fd = memfd_create("hloscope-drawing", MFD_CLOEXEC);

	m->f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!m->f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return hs_fail(err, hs_errno_status(e), "cannot hold the drawing in memory: %s", strerror(e));
	}
	setvbuf(m->f, m->buf, _IOFBF, sizeof m->buf);
	return 0;
}

/* Copies what m holds to out (through a buffer on the stack); a failed
 * write to out is left to its owner when `owned` (the atomic writer keeps
 * the first errno and says it when committing). */
static int mem_copy(dot_mem *m, FILE *out, int owned, const char *fmt, hs_error *err)
{
	char chunk[1 << 14];
	size_t k;

	errno = 0;
	if (fflush(m->f) != 0 || ferror(m->f) || fseek(m->f, 0, SEEK_SET) != 0) {
		int e = errno ? errno : EIO;
		return hs_fail(err, hs_errno_status(e), "cannot hold the %s in memory: %s", fmt, strerror(e));
	}
	while ((k = fread(chunk, 1, sizeof chunk, m->f)) > 0)
		if (fwrite(chunk, 1, k, out) != k && !owned) {
			int e = errno ? errno : EIO;
			return hs_fail(err, hs_errno_status(e), "writing %s failed: %s", fmt, strerror(e));
		}
	return 0;
}

/* Renders the laid out g into fp; out of memory whenever an allocation
 * failed in Graphviz or gd, whatever else it says. */
static int render(GVC_t *gvc, Agraph_t *g, const char *fmt, FILE *fp, hs_error *err)
{
	int png = !strcmp(fmt, "png");
	long before = ftell(fp);

	if (png)
		gd_watch(1);
	int rc = dot_gv_render(gvc, g, fmt, fp);
	if (png)
		gd_watch(0);
	long after = rc == 0 ? ftell(fp) : -1;
	int nothing = before >= 0 && after == before;
	int cut = strstr(gd_complaint, "alloc") || strstr(gd_complaint, "memory");
	if (dot_gv_out_of_memory() || (dot_gv_last_enomem() && nothing) || cut)
		return hs_fail(err, HS_ENOMEM, "out of memory drawing the %s with Graphviz%s%s%s",
			       png ? "PNG" : "SVG", cut ? " (gd: " : "", cut ? gd_complaint : "", cut ? ")" : "");
	if (rc != 0)
		return hs_fail(err, HS_EDATA, "Graphviz cannot render %s: %s%s", fmt, dot_gv_error_text(),
			       png && !dot_gv_has_gd() ? " (PNG needs Graphviz's gd plugin, libgvplugin_gd)" : "");
	if (nothing)
		return hs_fail(err, HS_EDATA, "Graphviz wrote no %s: %s", fmt, dot_gv_error_text());
	return 0;
}

struct write_call {
	Agraph_t *g;
	FILE *fp;
};

static int write_call(void *arg)
{
	struct write_call *c = arg;

	return agwrite(c->g, c->fp);
}

/* agwrite's text of g into fp. */
static int dot_text(Agraph_t *g, FILE *fp, hs_error *err)
{
	struct write_call c = {g, fp};

	agseterrf(dot_gv_error_sink);
	errno = 0;
	int wrote = dot_guarded(write_call, &c);
	if (wrote == -2) {
		dot_lose_graph(g);
		return hs_fail(err, HS_ENOMEM, "out of memory writing DOT with Graphviz");
	}
	if (wrote != 0 || ferror(fp))
		return hs_fail(err, errno == ENOMEM ? HS_ENOMEM : HS_EDATA, "Graphviz cannot write DOT: %s",
			       errno ? strerror(errno) : dot_gv_error_text());
	return 0;
}

/* Lays g out and renders it as SVG or PNG into fp. */
static int dot_picture(Agraph_t *g, const char *fmt, dot_fit *fit, FILE *fp, hs_error *err)
{
	int png = !strcmp(fmt, "png");
	GVC_t *gvc = png ? dot_png_context(err) : dot_context(err);
	if (!gvc)
		return -1;
	struct png_call pc = {gvc, g, fit, 0};
	if (png && png_step(png_layout, &pc) < 0)
		return hs_fail(err, HS_ENOMEM, "out of memory in Graphviz's dot layout");
	int rc = png ? pc.rc : dot_gv_layout(gvc, g);
	if (rc != 0) {
		if (dot_gv_out_of_memory() || dot_graph_lost(g))
			return hs_fail(err, HS_ENOMEM, "out of memory in Graphviz's dot layout");
		return hs_fail(err, HS_EDATA, "Graphviz dot layout failed: %s", dot_gv_error_text());
	}
	rc = render(gvc, g, fmt, fp, err);
	if (dot_graph_lost(g))
		return -1;
	gvFreeLayout(gvc, g);
	if (png && png_step(png_done, &pc) < 0 && rc == 0)
		return hs_fail(err, HS_ENOMEM, "out of memory resetting the PNG's attributes in Graphviz");
	return rc;
}

/* g in fmt into out, through memory: 0, or -1 with err set. */
static int dot_render(Agraph_t *g, const char *fmt, dot_fit *fit, FILE *out, int owned, hs_error *err)
{
	dot_mem *m;

	if (fit) {
		memset(fit, 0, sizeof *fit);
		fit->scale = 1;
	}
	if (!dot_format_known(fmt))
		return hs_fail(err, HS_EUSAGE, "unknown output format '%s' (dot, svg or png)",
			       fmt ? fmt : "");
	if (!(m = malloc(sizeof *m)))
		return hs_fail(err, HS_ENOMEM, "out of memory drawing the %s", fmt);
	if (mem_open(m, err) != 0) {
		free(m);
		return -1;
	}
	dot_gv_error_reset();
	int rc = !strcmp(fmt, "dot") ? dot_text(g, m->f, err) : dot_picture(g, fmt, fit, m->f, err);
	if (rc == 0)
		rc = mem_copy(m, out, owned, fmt, err);
	if (dot_graph_lost(g))
		return rc;     /* the stream and its buffer are abandoned with the graph */
	fclose(m->f);
	free(m);
	return rc;
}

int dot_write_stream(Agraph_t *g, FILE *fp, const char *fmt, dot_fit *fit, hs_error *err)
{
	return dot_render(g, fmt, fit, fp, 0, err);
}

int dot_write(Agraph_t *g, const char *path, const char *fmt, dot_fit *fit, hs_error *err)
{
	if (!dot_format_known(fmt))
		return hs_fail(err, HS_EUSAGE, "unknown output format '%s' (dot, svg or png)",
			       fmt ? fmt : "");
	/* opened first: a place that is refused is refused before the work */
	hs_afile *af = hs_afile_open(path, err);
	if (!af)
		return -1;
	if (dot_render(g, fmt, fit, hs_afile_stream(af), 1, err) != 0) {
		hs_afile_abort(af);
		hs_error_prefix(err, "%s", path);
		return -1;
	}
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
	dot_close(g);
	return rc;
}
